import type { CompensationStepWire, RunCompensation } from "../contract/sagas";
import { runCall } from "./call";
import type { ToolErrorInfo } from "./errors";
import { withGateRetry } from "./retry";
import type { CallDeps, ExecContext, GateTransport, SagaTransport } from "./types";

/** Undoes one step: gets the stored (redacted) args of the compensation; pass `ctx.idempotencyKey` downstream. */
export type CompensationExecutor = (args: unknown, ctx: ExecContext & { step: CompensationStepWire }) => Promise<unknown> | unknown;

export interface CompensateOptions {
  /** Executors by compensation tool name; added to (and overriding) the gate client's `compensators`. */
  compensators?: Record<string, CompensationExecutor>;
  signal?: AbortSignal;
}

/**
 * How a plan run ended: `compensated`, stopped by a permanent failure (`compensation_failed`, now in
 * the operators' queue), or left `compensating` (a retryable failure outlasted the retries, or
 * another runner still holds a step): run it again later.
 */
export interface CompensationOutcome {
  ok: boolean;
  state: RunCompensation["state"];
  plan: RunCompensation;
  /** What stopped this runner, when it stopped before the end. */
  error?: ToolErrorInfo;
}

/**
 * Runs a run's compensation plan step by step, each as a gated call under `<key>:compensate`, with
 * the tool's retry policy and heartbeats. Any number of runners may run one plan at once: the gate
 * gives each step's lease to one of them and the others wait for its outcome, so no step runs twice.
 */
export async function runCompensation(
  deps: CallDeps,
  sagas: SagaTransport,
  runId: string,
  executors: Record<string, CompensationExecutor>,
  options: CompensateOptions = {},
): Promise<CompensationOutcome> {
  for (;;) {
    const plan = await withGateRetry(() => sagas.compensationPlan(runId), deps.gateRetry, options.signal);
    const step = plan.nextCallId === null ? undefined : plan.steps.find((s) => s.callId === plan.nextCallId);
    if (plan.state !== "compensating" || !step) return { ok: plan.state === "compensated", state: plan.state, plan };
    const executor = executors[step.compensation.tool];
    if (!executor) throw new Error(`no compensator registered for tool "${step.compensation.tool}" (run ${runId}, call ${step.callId})`);

    const transport = stepTransport(deps.transport, sagas, runId, step.callId);
    const request = { tool: step.compensation.tool, runId, ...(step.compensation.args !== undefined ? { args: step.compensation.args } : {}) };
    const result = await runCall({ ...deps, transport }, request, (ctx) => executor(step.compensation.args, { ...ctx, step }), { signal: options.signal });
    if (result.ok || result.status === "lease_lost") continue;
    // A permanent failure is now on the plan (compensation_failed): one more read reports it.
    if (result.status === "failed" && !result.error.retryable) continue;
    const error = result.status === "failed" ? result.error : { message: `compensation of call ${step.callId} ended ${result.status}`, retryable: true };
    const now = await withGateRetry(() => sagas.compensationPlan(runId), deps.gateRetry, options.signal);
    return { ok: false, state: now.state, plan: now, error };
  }
}

/** The gate's transport, except that begins go to the step's compensation endpoint. */
function stepTransport(base: GateTransport, sagas: SagaTransport, runId: string, callId: string): GateTransport {
  return {
    begin: (request, signal) => sagas.beginCompensation(runId, callId, request.waitMs, signal),
    complete: (id, request) => base.complete(id, request),
    heartbeat: (id, request) => base.heartbeat(id, request),
    status: (id) => base.status(id),
  };
}

export function isSagaTransport(transport: GateTransport): transport is GateTransport & SagaTransport {
  return "beginCompensation" in transport && "compensationPlan" in transport && "abortRun" in transport;
}
