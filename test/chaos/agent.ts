import { type ModelMessage, type ToolSet, generateText, stepCountIs } from "ai";
import { type Gate, currentRun } from "../../lib/sdk";
import { type GatedToolConfig, gateTools } from "../../lib/sdk/adapters/ai-sdk";
import type { CallResult } from "../../lib/sdk/types";
import type { Mode, ToolBackend } from "./backend";
import { type Brain, type Task, scriptedModel, userMessage } from "./model";
import { TOOL_GATING } from "./tools";

/** Tallies the SDK's result statuses of gated calls: how often the gate replayed instead of running. */
export class Tally {
  readonly counts = new Map<string, number>();
  add = (result: CallResult<unknown>) => this.counts.set(result.status, (this.counts.get(result.status) ?? 0) + 1);
  get(status: string): number {
    return this.counts.get(status) ?? 0;
  }
}

export interface AgentRun {
  backend: ToolBackend;
  scenario: string;
  mode: Mode;
  seed: number;
  runId: string;
  task: Task;
  brain: Brain;
  tools: ToolSet;
  /** Present in gate mode: tools go through it and the run carries runId/agentId. */
  gate?: Gate;
  agentId?: string;
  tally?: Tally;
  /** Resume from a transcript instead of starting from the user's request. */
  messages?: ModelMessage[];
  /** The AI SDK's tool approval (human-in-the-loop). */
  toolApproval?: Record<string, "user-approval">;
  /** Called with the transcript before every model call (what a durable runtime persists). */
  onTranscript?: (messages: ModelMessage[]) => void;
}

/** AI SDK 6 asks for a human on the tool itself (`needsApproval`); the scenarios name the tools. */
function approvalOn(tools: ToolSet, approval: AgentRun["toolApproval"]): ToolSet {
  if (!approval) return tools;
  return Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, name in approval ? { ...t, needsApproval: true } : t])) as ToolSet;
}

/** One agent: the real AI SDK loop (generateText with tools), driven by a scripted model. */
export function runAgent(run: AgentRun) {
  const model = scriptedModel(run, run.brain);
  const withApproval = approvalOn(run.tools, run.toolApproval);
  const tools = run.gate
    ? gateTools(run.gate, withApproval, {
        tools: TOOL_GATING as Record<string, GatedToolConfig<unknown>>,
        ...(run.tally ? { onResult: run.tally.add } : {}),
      })
    : withApproval;
  const messages: ModelMessage[] = run.messages ?? [{ role: "user", content: userMessage(run.task) }];
  const go = () =>
    generateText({
      model,
      tools,
      messages,
      stopWhen: stepCountIs(12),
      ...(run.onTranscript
        ? {
            prepareStep: ({ messages: sofar }: { messages: ModelMessage[] }) => {
              run.onTranscript!(sofar);
              return undefined;
            },
          }
        : {}),
    });
  if (!run.gate) return go();
  // Inside another agent's run this is a subagent: it keeps the root runId, under its own agentId.
  const nested = currentRun() !== undefined;
  return run.gate.run({ ...(nested ? {} : { runId: run.runId }), ...(run.agentId ? { agentId: run.agentId } : {}) }, go);
}
