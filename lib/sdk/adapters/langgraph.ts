import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { interrupt } from "@langchain/langgraph";
import type { Gate } from "../gate";
import { describeForModel } from "../results";
import type { CallResult, CallSpec, PreviewOf } from "../types";
import { ApprovalPreviews } from "./approvals";
import { type GatedToolConfig, GatedToolError, callOptionsFor, defaultToModel, stepFor } from "./tool-config";

export { GatedToolError } from "./tool-config";

/** How one LangChain tool, run by LangGraph's ToolNode or an agent, goes through the gate. */
export interface GatedGraphToolConfig<INPUT = unknown> extends GatedToolConfig<INPUT> {
  /**
   * For a tool under policy `preview: approve`: its dry run. The call's preview goes to Idemgate's
   * inbox once per key and, while it waits, the tool calls `interrupt()` with an `ApprovalInterrupt`;
   * resume with `new Command({ resume })` (see `ApprovalResume`). Only what Idemgate approved runs.
   */
  approval?: (input: INPUT) => Promise<PreviewOf> | PreviewOf;
}

export interface GateGraphToolsOptions {
  tools?: Record<string, GatedGraphToolConfig<any>>;
  /** The run id from the graph's config. Default: `thread_id` (a subgraph's calls share it, named by their node path as agentId), else `gate.run`'s. */
  runId?: (config: RunnableConfig) => string | undefined;
  /** What the model sees for a call that produced no value (refused, in_progress, a denied approval, …). */
  toModel?: (result: CallResult<unknown>, toolName: string) => unknown;
  /** Sees every gated call's result: for logs and metrics. */
  onResult?: (result: CallResult<unknown>, info: { toolName: string; toolCallId: string }) => void;
}

/** The value a gated tool interrupts with while Idemgate's operators have not decided on its call. */
export interface ApprovalInterrupt {
  idemgate: "approval";
  previewId: string;
  tool: string;
  toolCallId: string;
  args: unknown;
}

/**
 * What to resume an approval interrupt with. `{ approved: false }` refuses the call in the app (the
 * model is told so; nothing runs); anything else asks Idemgate again, and the call runs only if an
 * operator approved it there (waiting up to the tool's `previewTimeoutMs`, default 0).
 */
export type ApprovalResume = { approved: boolean; note?: string } | undefined;

/**
 * LangChain tools, gated, for `ToolNode`, `createReactAgent` or `createAgent`: each call begins at
 * the gate under the run of the graph's thread, with the step from the tool's config (scope path,
 * the engine's step id with `stepId: "engine"` — the task id and the call's id in its checkpointed
 * message —, else the canonical args), runs the original only when it holds the lease, and completes.
 * A graph resumed from its checkpointer (after a crash, an `interrupt()`, or from an old checkpoint)
 * replays what already ran; a failure is thrown, so ToolNode shows the model a tool error.
 */
export function gateGraphTools<TOOLS extends StructuredToolInterface[]>(gate: Gate, tools: TOOLS, options: GateGraphToolsOptions = {}): TOOLS {
  const approvals = new ApprovalPreviews(gate);
  return tools.map((original) => {
    const config = (options.tools?.[original.name] ?? {}) as GatedGraphToolConfig<unknown>;
    const name = original.name;
    return tool(
      async (input: unknown, runnable: RunnableConfig & { toolCall?: { id?: string } }) => {
        const toolCallId = runnable.toolCall?.id ?? "";
        const { toolCall: _call, ...forOriginal } = runnable;
        const runId = options.runId?.(runnable) ?? threadOf(runnable) ?? gate.context()?.runId;
        const agentId = subgraphOf(runnable);
        const spec: CallSpec = {
          tool: name,
          toolCallId,
          args: input,
          ...(runId !== undefined ? { runId } : {}),
          ...(agentId !== undefined ? { agentId } : {}),
          ...stepFor(name, config, input, toolCallId, engineStepId(runnable, toolCallId)),
        };
        // Without the toolCall the original answers its plain value (not a ToolMessage): that is what is stored.
        const exec = () => original.invoke(input as never, forOriginal);
        const base = callOptionsFor(config, input, runnable.signal);
        const previewId = config.approval ? await approvals.previewFor(spec, () => config.approval!(input)) : undefined;
        let result = await gate.call(spec, exec, previewId !== undefined ? { ...base, previewId, previewTimeoutMs: 0 } : base);
        if (result.status === "preview_pending" && previewId !== undefined) {
          // Everything above runs again when the graph resumes: the preview is found again by key, and
          // an approval given meanwhile runs the call before this interrupt is ever reached.
          const answer = interrupt<ApprovalInterrupt, ApprovalResume>({ idemgate: "approval", previewId, tool: name, toolCallId, args: input });
          if (answer && answer.approved === false) {
            return `A human refused this action${answer.note ? `: ${answer.note}` : ""}. Do not do it.`;
          }
          result = await gate.call(spec, exec, { ...base, previewId, previewTimeoutMs: config.previewTimeoutMs ?? 0 });
        }
        options.onResult?.(result, { toolName: name, toolCallId });
        if (result.ok) return result.value;
        if (result.status === "failed") throw new GatedToolError(result);
        const shown = (options.toModel ?? defaultToModel)(result, name);
        return typeof shown === "string" ? shown : JSON.stringify(shown ?? describeForModel(result));
      },
      { name, description: original.description, schema: original.schema as never },
    );
  }) as unknown as TOOLS;
}

/** The graph's thread as the run: a graph resumed from its checkpointer keys the same. */
function threadOf(config: RunnableConfig): string | undefined {
  const thread = config.configurable?.thread_id as string | number | undefined;
  return thread === undefined || thread === "" ? undefined : String(thread);
}

/**
 * Inside a subgraph, its parent nodes' names as the agent (never their task ids, which change with
 * every super-step): like a subagent, a subgraph shares its thread's run, so a step the parent graph
 * and a subgraph both decide to take has one key, and the ledger says which one called.
 */
function subgraphOf(config: RunnableConfig): string | undefined {
  const namespace = config.configurable?.checkpoint_ns;
  if (typeof namespace !== "string") return undefined;
  const parents = namespace.split("|").filter(Boolean).slice(0, -1).map((segment) => segment.split(":")[0]);
  return parents.length > 0 ? parents.join("/") : undefined;
}

/** LangGraph's own identity of this call: its task (stable across resumes of one checkpoint) and the call in it. */
function engineStepId(config: RunnableConfig, toolCallId: string): string | undefined {
  const task = config.configurable?.__pregel_task_id as string | undefined;
  return task ? `${task}:${toolCallId}` : undefined;
}
