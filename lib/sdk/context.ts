import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { ExecContext } from "./types";

/** One user request handled by an agent; subagents share the root's runId. */
export interface RunContext {
  runId: string;
  agentId: string;
  /** The agent that started this one; undefined at the root. */
  parentAgentId?: string;
  depth: number;
  /** A durable engine's id for the step this run context is (see RunInit.stepId). */
  stepId?: string;
}

export interface RunInit {
  /** Root runs only (default: a new id). A nested run always inherits the root's runId. */
  runId?: string;
  /** Default: "main" at the root, `<parent>/<n>` for a nested run. */
  agentId?: string;
  /**
   * A durable engine's id for the step this code runs as (Vercel Workflow's
   * `getStepMetadata().stepId`, a LangGraph task id, a Temporal activity id): calls inside that name
   * no `step` of their own are keyed on it, so the gate dedupes exactly what the engine retries as
   * one step (one effect per tool per engine step). A nested run without one inherits its parent's.
   */
  stepId?: string;
}

const runs = new AsyncLocalStorage<RunContext & { children: { n: number } }>();
const toolCalls = new AsyncLocalStorage<ExecContext>();

/**
 * Runs `fn` inside a run context. Called inside another run (a subagent), it keeps the root runId
 * and gives the subagent its own agentId, so a step the parent and a subagent both decide to do
 * has one key.
 */
export function runWithContext<R>(init: RunInit, fn: () => R): R {
  const parent = runs.getStore();
  if (parent && init.runId !== undefined && init.runId !== parent.runId) {
    throw new Error(
      `gate.run: runId "${init.runId}" inside run "${parent.runId}": a subagent shares its root's runId; omit runId`,
    );
  }
  const context = parent
    ? {
        runId: parent.runId,
        agentId: init.agentId ?? `${parent.agentId}/${++parent.children.n}`,
        parentAgentId: parent.agentId,
        depth: parent.depth + 1,
        children: { n: 0 },
        ...stepOf(init.stepId ?? parent.stepId),
      }
    : { runId: init.runId ?? `run_${randomUUID()}`, agentId: init.agentId ?? "main", depth: 0, children: { n: 0 }, ...stepOf(init.stepId) };
  return runs.run(context, fn);
}

function stepOf(stepId: string | undefined): { stepId?: string } {
  return stepId !== undefined ? { stepId } : {};
}

export function currentRun(): RunContext | undefined {
  const store = runs.getStore();
  if (!store) return undefined;
  const { children: _children, ...context } = store;
  return context;
}

/**
 * The gated call a tool is executing in, if any: how a wrapped tool (e.g. through the AI SDK
 * adapter) reads the idempotency key to pass downstream without changing its signature.
 */
export function currentToolCall(): ExecContext | undefined {
  return toolCalls.getStore();
}

export function runWithToolCall<R>(context: ExecContext, fn: () => R): R {
  return toolCalls.run(context, fn);
}
