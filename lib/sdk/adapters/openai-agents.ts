import {
  type FunctionTool,
  type RunContext,
  type RunState,
  type RunToolApprovalItem,
  type ToolExecuteArgument,
  type ToolInputParameters,
  type ToolOptions,
  tool,
} from "@openai/agents";
import type { Gate } from "../gate";

import type { CallResult, CallSpec, PreviewOf } from "../types";
import { type ApprovalState, ApprovalPreviews } from "./approvals";
import { type GatedToolConfig, GatedToolError, callOptionsFor, defaultToModel, stepFor } from "./tool-config";

export { GatedToolError } from "./tool-config";

/** The third argument of a tool's `execute` (not exported by name from `@openai/agents`). */
type ToolCallDetails = { toolCall?: { callId: string }; signal?: AbortSignal };

/** How one OpenAI Agents SDK function tool goes through the gate. */
export interface GatedAgentToolConfig<INPUT = unknown> extends GatedToolConfig<INPUT> {
  /**
   * For a tool under policy `preview: approve`: its dry run. When the model calls the tool, the dry
   * run goes to Idemgate's inbox and the tool `needsApproval`, so the run pauses with an interruption
   * until an operator decides; only the call Idemgate approved runs, once (see `settleApprovals`).
   */
  approval?: (input: INPUT) => Promise<PreviewOf> | PreviewOf;
  /** The run id, from the run's context (serialized in RunState, so a resumed run keys the same). Default: `gate.run`'s. */
  runId?: (context: RunContext<unknown>) => string | undefined;
  /** What the model sees for a call that produced no value (refused, in_progress, a denied approval, …). */
  toModel?: (result: CallResult<unknown>, toolName: string) => unknown;
  /** Sees every gated call's result: for logs and metrics. */
  onResult?: (result: CallResult<unknown>, info: { toolName: string; toolCallId: string }) => void;
}

/** The gated tools that ask Idemgate for approval, so `settleApprovals` finds their previews from an interruption. */
const gatedApprovals = new WeakMap<
  object,
  { approval: (input: unknown) => Promise<PreviewOf> | PreviewOf; specFor: (input: unknown, callId: string, context: unknown) => CallSpec }
>();

const approvalsByGate = new WeakMap<Gate, ApprovalPreviews>();

function approvalsOf(gate: Gate): ApprovalPreviews {
  let approvals = approvalsByGate.get(gate);
  if (!approvals) approvalsByGate.set(gate, (approvals = new ApprovalPreviews(gate)));
  return approvals;
}

/**
 * `tool()` of `@openai/agents`, gated: each call begins at the gate (step from the config's scope
 * path, engine step id or the canonical args, never the model's call id, which is recorded), runs
 * `execute` only when it holds the lease, and completes. A replay returns the stored output; a
 * failure, fresh or replayed, reaches the model through the tool's `errorFunction` as a tool error.
 */
export function gatedTool<TParameters extends ToolInputParameters, Context = unknown, Result = unknown>(
  gate: Gate,
  options: ToolOptions<TParameters, Context> & {
    execute: (input: ToolExecuteArgument<TParameters>, context?: RunContext<Context>, details?: ToolCallDetails) => Promise<Result> | Result;
  },
  config: GatedAgentToolConfig<ToolExecuteArgument<TParameters>> = {},
): FunctionTool<Context, TParameters, unknown> {
  const name = options.name ?? (options.execute as { name?: string }).name ?? "";
  const gating = config as GatedAgentToolConfig<unknown>;
  const specFor = (input: unknown, context: RunContext<Context> | undefined, callId: string): CallSpec => {
    const runId = context && gating.runId ? gating.runId(context as RunContext<unknown>) : undefined;
    return { tool: name, toolCallId: callId, args: input, ...(runId !== undefined ? { runId } : {}), ...stepFor(name, gating, input, callId) };
  };
  const approval = gating.approval;
  const ownApproval = options.needsApproval;

  const gated = tool({
    ...options,
    ...(approval || ownApproval
      ? {
          needsApproval: async (context: RunContext<Context>, input: ToolExecuteArgument<TParameters>, callId?: string) => {
            if (typeof ownApproval === "function" ? await ownApproval(context, input, callId) : ownApproval === true) return true;
            if (!approval) return false;
            // Pause only while the operators have not decided: an approved, denied or spent preview
            // goes straight to execute, which runs it, tells the model it was denied, or replays.
            const spec = specFor(input, context, callId ?? "");
            const previewId = await approvalsOf(gate).previewFor(spec, () => approval(input));
            return (await approvalsOf(gate).state(previewId)).state === "pending";
          },
        }
      : {}),
    execute: async (input: ToolExecuteArgument<TParameters>, context?: RunContext<Context>, details?: ToolCallDetails) => {
      const callId = details?.toolCall?.callId ?? "";
      const spec = specFor(input, context, callId);
      const previewId = approval ? await approvalsOf(gate).previewFor(spec, () => approval(input)) : undefined;
      const result = await gate.call(spec, () => options.execute(input, context, details), {
        ...callOptionsFor(gating, input, details?.signal),
        ...(previewId !== undefined ? { previewId, previewTimeoutMs: gating.previewTimeoutMs ?? 0 } : {}),
      });
      gating.onResult?.(result, { toolName: name, toolCallId: callId });
      if (result.ok) return result.value;
      if (result.status === "failed") throw new GatedToolError(result);
      return (gating.toModel ?? defaultToModel)(result, name);
    },
  } as ToolOptions<TParameters, Context>) as FunctionTool<Context, TParameters, unknown>;
  if (approval) {
    gatedApprovals.set(gated, {
      approval: approval as (input: unknown) => Promise<PreviewOf> | PreviewOf,
      specFor: (input, callId, context) => specFor(input, context as RunContext<Context> | undefined, callId),
    });
  }
  return gated;
}

export interface SettleOptions {
  /** How long to wait for the operators' decisions (default 0: settle what is decided, leave the rest pending). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What `settleApprovals` did with each interruption of a gated tool. */
export interface SettledApproval {
  item: RunToolApprovalItem;
  previewId: string;
  state: ApprovalState;
}

/**
 * Carries Idemgate's decisions into a paused run: each interruption of a gated tool with `approval`
 * is approved on the RunState once an operator approved it in Idemgate (a spent approval counts too:
 * running it again only replays), rejected with the operator's note once denied, and left alone while
 * pending. Then `run(agent, state)` resumes. Call it inside the same `gate.run` as the run.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any agent's state
export async function settleApprovals(gate: Gate, state: RunState<any, any>, options: SettleOptions = {}): Promise<SettledApproval[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 0);
  const settled: SettledApproval[] = [];
  for (const item of state.getInterruptions()) {
    const gated = item.agent.tools.find((t) => t.name === item.name && gatedApprovals.has(t));
    if (!gated || item.rawItem.type !== "function_call") continue;
    const { approval, specFor } = gatedApprovals.get(gated)!;
    const input = JSON.parse(item.rawItem.arguments) as unknown;
    const previewId = await approvalsOf(gate).previewFor(specFor(input, item.rawItem.callId, state._context), () => approval(input));
    let decided = await approvalsOf(gate).state(previewId, options.signal);
    for (let pause = 250; decided.state === "pending" && Date.now() < deadline; pause = Math.min(pause * 2, 2_000)) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
      decided = await approvalsOf(gate).state(previewId, options.signal);
    }
    if (decided.state === "approved" || decided.state === "used") state.approve(item);
    if (decided.state === "denied") {
      state.reject(item, { message: `A human denied this action in Idemgate${decided.note ? `: ${decided.note}` : ""}. Do not do it.` });
    }
    settled.push({ item, previewId, state: decided.state });
  }
  return settled;
}
