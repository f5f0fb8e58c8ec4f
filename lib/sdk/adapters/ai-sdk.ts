import type { InferToolInput, ToolExecutionOptions, ToolSet } from "ai";
import type { Gate } from "../gate";
import { describeForModel } from "../results";
import type { CallResult, CallSpec, CheckOutcome, Cost, ExecContext, PreviewOf, VerifyOutcome } from "../types";

/** How one AI SDK tool goes through the gate. */
export interface GatedToolConfig<INPUT = unknown> {
  /**
   * The business entity the call is about: a path into the args ("orderId", "order.id") — the
   * scope becomes `orderId:<value>` — or a function. Calls of this tool in one run with the same
   * scope are one step, whatever toolCallId or wording the model used.
   */
  scope?: string | ((input: INPUT) => string | undefined);
  /** Full control over the step (wins over `scope`). */
  step?: (input: INPUT, info: { toolName: string; toolCallId: string }) => { step?: string; scope?: string };
  /** Read-only: always runs and is still recorded (see README: a step unique to the toolCallId). */
  read?: boolean;
  /** Looks the effect up downstream by key when the gate answers `verify`. */
  verify?: (input: INPUT, ctx: ExecContext) => Promise<VerifyOutcome<unknown>> | VerifyOutcome<unknown>;
  /** Status check on verify: found (completed with it, no second effect) / not_found (runs) / unknown (operators). */
  check?: (input: INPUT, key: string, ctx: ExecContext) => Promise<CheckOutcome<unknown>> | CheckOutcome<unknown>;
  /** For tools under policy `preview`: the dry run's summary and affected resources (waits for approval under `approve`). */
  preview?: (input: INPUT) => Promise<PreviewOf> | PreviewOf;
  /** How long to wait for a preview's approval (default 300 000 ms). */
  previewTimeoutMs?: number;
  /** A lease of our own for this tool, kept alive by heartbeats. */
  leaseSeconds?: number;
  /** Budgets: what one successful execution cost, reported on its complete and counted against the run's `maxCostPerRun`. */
  cost?: (input: INPUT, output: unknown) => Cost | undefined;
}

export interface GateToolsOptions<TOOLS extends ToolSet> {
  tools?: { [K in keyof TOOLS]?: GatedToolConfig<InferToolInput<TOOLS[K]>> };
  /** What the model sees for a call that produced no value (refused, in_progress, blocked, …). */
  toModel?: (result: CallResult<unknown>, toolName: string) => unknown;
  /** Sees every gated call's result: for logs and metrics. */
  onResult?: (result: CallResult<unknown>, info: { toolName: string; toolCallId: string }) => void;
}

/** Thrown to the AI SDK for a failed call, fresh or replayed, so the model sees a tool error either way. */
export class GatedToolError extends Error {
  constructor(readonly result: Extract<CallResult<unknown>, { status: "failed" }>) {
    super(result.error.message);
  }
}

type ExecuteFn = (input: unknown, options: ToolExecutionOptions) => unknown;

/**
 * Wraps every tool with an `execute` so it runs through the gate: the step comes from the tool's
 * config (default: tool name + the scope at a declared args path, else the canonical args), the
 * model's toolCallId is passed along and recorded, and the original tool receives the gate's key via
 * `currentToolCall().idempotencyKey`. Call the model inside `gate.run({ runId }, …)`.
 */
export function gateTools<TOOLS extends ToolSet>(gate: Gate, tools: TOOLS, options: GateToolsOptions<TOOLS> = {}): TOOLS {
  const wrapped: Record<string, unknown> = {};
  for (const [toolName, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: ExecuteFn }).execute;
    if (typeof execute !== "function") {
      wrapped[toolName] = tool;
      continue;
    }
    const config = (options.tools?.[toolName as keyof TOOLS] ?? {}) as GatedToolConfig<unknown>;
    wrapped[toolName] = {
      ...tool,
      execute: async (input: unknown, execOptions: ToolExecutionOptions) => {
        const { toolCallId } = execOptions;
        const spec: CallSpec = { tool: toolName, toolCallId, args: input, ...stepFor(toolName, config, input, toolCallId) };
        const verify = config.verify;
        const result = await gate.call(
          spec,
          ({ signal }) => finalValue(execute.call(tool, input, { ...execOptions, abortSignal: combine(execOptions.abortSignal, signal) })),
          {
            signal: execOptions.abortSignal,
            ...(verify ? { verify: (ctx: ExecContext) => verify(input, ctx) } : {}),
            ...(config.check ? { check: (key: string, _args: unknown, ctx: ExecContext) => config.check!(input, key, ctx) } : {}),
            ...(config.preview ? { preview: () => config.preview!(input) } : {}),
            ...(config.previewTimeoutMs !== undefined ? { previewTimeoutMs: config.previewTimeoutMs } : {}),
            ...(config.leaseSeconds !== undefined ? { leaseSeconds: config.leaseSeconds } : {}),
            ...(config.cost ? { cost: (output: unknown) => config.cost!(input, output) } : {}),
          },
        );
        options.onResult?.(result, { toolName, toolCallId });
        if (result.ok) return result.value;
        if (result.status === "failed") throw new GatedToolError(result);
        return (options.toModel ?? defaultToModel)(result, toolName);
      },
    };
  }
  return wrapped as TOOLS;
}

export function stepFor(toolName: string, config: GatedToolConfig<unknown>, input: unknown, toolCallId: string): Pick<CallSpec, "step" | "scope"> {
  if (config.step) return config.step(input, { toolName, toolCallId });
  // Until per-tool policies (effect: read) land, a read runs under a step of its own: never deduped,
  // still recorded; only a redelivery of the very same toolCallId replays.
  if (config.read) return { step: `read:${toolCallId}` };
  if (typeof config.scope === "function") {
    const scope = config.scope(input);
    return scope ? { scope } : {};
  }
  if (typeof config.scope === "string") {
    const value = valueAt(input, config.scope);
    if (value !== undefined && value !== null && value !== "") return { scope: `${config.scope}:${String(value)}` };
  }
  return {};
}

function valueAt(input: unknown, path: string): unknown {
  let value = input;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A streaming tool's final output is its last yielded value, as in the AI SDK. */
async function finalValue(output: unknown): Promise<unknown> {
  const value = await output;
  if (value === null || typeof value !== "object" || !(Symbol.asyncIterator in value)) return value;
  let last: unknown;
  for await (const part of value as AsyncIterable<unknown>) last = part;
  return last;
}

function combine(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  return a ? AbortSignal.any([a, b]) : b;
}

function defaultToModel(result: CallResult<unknown>): unknown {
  return { status: result.status, ...(result.status === "blocked" ? { reason: result.reason } : {}), message: describeForModel(result) };
}
