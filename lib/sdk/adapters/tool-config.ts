import { describeForModel } from "../results";
import type { CallOptions, CallResult, CallSpec, CheckOutcome, Cost, ExecContext, PreviewOf, VerifyOutcome } from "../types";

/** What a framework adapter knows about the call besides its args, for a `step` or `stepId` function. */
export interface ToolCallInfo {
  toolName: string;
  toolCallId: string;
  /** The engine's own id for the step running this call, where the framework has one (LangGraph: the task id). */
  engineStepId?: string;
}

/** How one framework tool goes through the gate: the same options for every adapter. */
export interface GatedToolConfig<INPUT = unknown> {
  /**
   * The business entity the call is about: a path into the args ("orderId", "order.id") — the
   * scope becomes `orderId:<value>` — or a function. Calls of this tool in one run with the same
   * scope are one step, whatever toolCallId or wording the model used.
   */
  scope?: string | ((input: INPUT) => string | undefined);
  /** Full control over the step (wins over `stepId` and `scope`). */
  step?: (input: INPUT, info: ToolCallInfo) => { step?: string; scope?: string };
  /**
   * A durable engine's id for this step as the key (wins over `scope`): the call is one effect per
   * engine step, however often the engine replays it. `"engine"` takes the framework's own id where
   * the adapter has one (LangGraph: the task id); a function picks one from the input and ids.
   */
  stepId?: "engine" | ((input: INPUT, info: ToolCallInfo) => string | undefined);
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

/** Thrown to (or shown to) the framework for a failed call, fresh or replayed, so the model sees a tool error either way. */
export class GatedToolError extends Error {
  constructor(readonly result: Extract<CallResult<unknown>, { status: "failed" }>) {
    super(result.error.message);
  }
}

/** The key material of one call: step, engine step id or scope, from the tool's config (none: the canonical args). */
export function stepFor(
  toolName: string,
  config: GatedToolConfig<unknown>,
  input: unknown,
  toolCallId: string,
  engineStepId?: string,
): Pick<CallSpec, "step" | "stepId" | "scope"> {
  const info: ToolCallInfo = { toolName, toolCallId, ...(engineStepId !== undefined ? { engineStepId } : {}) };
  if (config.step) return config.step(input, info);
  // Until per-tool policies (effect: read) land, a read runs under a step of its own: never deduped,
  // still recorded; only a redelivery of the very same toolCallId replays.
  if (config.read) return { step: `read:${toolCallId}` };
  if (config.stepId) {
    const stepId = config.stepId === "engine" ? engineStepId : config.stepId(input, info);
    if (stepId) return { stepId };
  }
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

/** The gate's call options a tool's config asks for. */
export function callOptionsFor(config: GatedToolConfig<unknown>, input: unknown, signal?: AbortSignal): CallOptions<unknown> {
  const { verify, check, preview, cost } = config;
  return {
    ...(signal ? { signal } : {}),
    ...(verify ? { verify: (ctx: ExecContext) => verify(input, ctx) } : {}),
    ...(check ? { check: (key: string, _args: unknown, ctx: ExecContext) => check(input, key, ctx) } : {}),
    ...(preview ? { preview: () => preview(input) } : {}),
    ...(config.previewTimeoutMs !== undefined ? { previewTimeoutMs: config.previewTimeoutMs } : {}),
    ...(config.leaseSeconds !== undefined ? { leaseSeconds: config.leaseSeconds } : {}),
    ...(cost ? { cost: (output: unknown) => cost(input, output) } : {}),
  };
}

function valueAt(input: unknown, path: string): unknown {
  let value = input;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** What the model sees for a call that produced no value (refused, in_progress, blocked, a denied preview, …). */
export function defaultToModel(result: CallResult<unknown>): unknown {
  return { status: result.status, ...(result.status === "blocked" ? { reason: result.reason } : {}), message: describeForModel(result) };
}
