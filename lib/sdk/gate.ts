import { runCall } from "./call";
import { type CompensateOptions, type CompensationExecutor, type CompensationOutcome, isSagaTransport, runCompensation } from "./compensate";
import { withToolSpan } from "./tracing";
import { type RunContext, type RunInit, currentRun, runWithContext } from "./context";
import { type ToolErrorInfo, toToolErrorInfo } from "./errors";
import { HttpTransport, type HttpTransportOptions } from "./http-transport";
import { InProcessTransport, type InProcessOptions } from "./in-process-transport";
import { DEFAULT_GATE_RETRY, withBackoff, withGateRetry } from "./retry";
import type { Backoff, BeginRequest, CallDeps, CallOptions, CallResult, CallSpec, CallStatus, CheckOutcome, CompensationSpec, CompleteRequest, Exec, ExecContext, GateTransport, PreviewOf, SagaTransport } from "./types";

export interface GateClientOptions {
  /** Server-side wait for a live attempt's outcome per begin (≤ 10 000). Default 5 000. */
  waitMs?: number;
  /** Total time a call waits out another attempt before answering `in_progress`. Default 60 000. */
  maxWaitMs?: number;
  /** Run every call on a lease this short, kept alive by heartbeats. Default: the gate's policy. */
  leaseSeconds?: number;
  /** Heartbeat long executions (every third of the lease). Default true. */
  heartbeat?: boolean;
  /** Retries of transient gate errors (always with the same request). */
  gateRetry?: Partial<Backoff>;
  /** Retries of retryable tool failures; default: the gate's advice; `false`: surface the first. */
  toolRetry?: Partial<Backoff> | false;
  classifyError?: (error: unknown) => ToolErrorInfo;
  /** Sagas: executors of compensation tools, by name; `compensate(runId)` runs plans with them. */
  compensators?: Record<string, CompensationExecutor>;
}

export type CreateGateOptions = GateClientOptions &
  (
    | ({ baseUrl: string; apiKey: string } & Omit<HttpTransportOptions, "baseUrl" | "apiKey">)
    | { inProcess: InProcessOptions }
    | { transport: GateTransport }
  );

export interface Gate {
  readonly transport: GateTransport;
  /** Runs `fn` as (part of) a run; nested calls are subagents sharing the root runId. */
  run<R>(init: RunInit, fn: () => R): R;
  /** The current run, if inside one. */
  context(): RunContext | undefined;
  /** At most once per key: see CallResult for every outcome. */
  call<T>(spec: CallSpec, exec: Exec<T>, options?: CallOptions<T>): Promise<CallResult<T>>;
  /** Records the final outcome of an accepted operation, from whoever holds its id (a job callback, a poller). */
  finishOperation(callId: string, operationId: string, outcome: OperationOutcome): Promise<CallStatus>;
  /** A tool bound to its executor and (optionally) its status check, compensation and preview: call it with args. */
  tool<A, T>(name: string, definition: ToolDefinition<A, T>): (args: A, spec?: Omit<CallSpec, "tool" | "args">, options?: CallOptions<T>) => Promise<CallResult<T>>;
  /** Sagas: aborts the run (idempotent); with compensators registered, runs its compensation plan too. */
  abort(runId: string, reason: string, options?: CompensateOptions): Promise<CompensationOutcome>;
  /** Sagas: runs the run's compensation plan; safe to run from several processes at once. */
  compensate(runId: string, options?: CompensateOptions): Promise<CompensationOutcome>;
}

export interface ToolDefinition<A, T> {
  exec: (args: A, ctx: ExecContext) => Promise<T> | T;
  /** Status check, run when the gate answers verify: found / not_found / unknown. */
  check?: (key: string, args: A, ctx: ExecContext) => Promise<CheckOutcome<T>> | CheckOutcome<T>;
  compensate?: (result: T) => CompensationSpec;
  preview?: (args: A) => Promise<PreviewOf> | PreviewOf;
}

export type OperationOutcome = { ok: true; result?: unknown } | { ok: false; error: ToolErrorInfo };

const DEFAULT_WAIT_MS = 5_000;
const DEFAULT_MAX_WAIT_MS = 60_000;

/** A gate client over HTTP (`baseUrl` + `apiKey`), in-process (`inProcess`), or any transport. */
export function createGate(options: CreateGateOptions): Gate {
  const transport = transportFor(options);
  if (options.leaseSeconds !== undefined && !(Number.isInteger(options.leaseSeconds) && options.leaseSeconds >= 1)) {
    throw new Error("leaseSeconds must be a whole number of seconds ≥ 1");
  }
  const deps: CallDeps = {
    transport,
    gateRetry: withBackoff(DEFAULT_GATE_RETRY, options.gateRetry),
    waitMs: Math.min(10_000, Math.max(0, options.waitMs ?? DEFAULT_WAIT_MS)),
    maxWaitMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    leaseSeconds: options.leaseSeconds,
    heartbeat: options.heartbeat ?? true,
    toolRetry: options.toolRetry,
    classifyError: options.classifyError ?? toToolErrorInfo,
  };

  return {
    transport,
    run: runWithContext,
    context: currentRun,
    async call<T>(spec: CallSpec, exec: Exec<T>, callOptions?: CallOptions<T>) {
      const request = toBeginRequest(spec);
      return withToolSpan(request, () => runCall(deps, request, exec, callOptions));
    },
    tool<A, T>(name: string, definition: ToolDefinition<A, T>) {
      return (args: A, spec: Omit<CallSpec, "tool" | "args"> = {}, callOptions: CallOptions<T> = {}) => {
        const { check, compensate, preview } = definition;
        const request = toBeginRequest({ ...spec, tool: name, args });
        const options: CallOptions<T> = {
          ...(check ? { check: (key, a, ctx) => check(key, a as A, ctx) } : {}),
          ...(compensate ? { compensate } : {}),
          ...(preview ? { preview: (a) => preview(a as A) } : {}),
          ...callOptions,
        };
        return withToolSpan(request, () => runCall(deps, request, (ctx) => definition.exec(args, ctx), options));
      };
    },
    async abort(runId, reason, abortOptions) {
      const sagas = sagaTransport(transport);
      const plan = await withGateRetry(() => sagas.abortRun(runId, reason), deps.gateRetry);
      const executors = { ...options.compensators, ...abortOptions?.compensators };
      if (Object.keys(executors).length === 0) return { ok: plan.state === "compensated", state: plan.state, plan };
      return runCompensation(deps, sagas, runId, executors, abortOptions);
    },
    compensate(runId, compensateOptions) {
      const executors = { ...options.compensators, ...compensateOptions?.compensators };
      return runCompensation(deps, sagaTransport(transport), runId, executors, compensateOptions);
    },
    finishOperation(callId, operationId, outcome) {
      const body: CompleteRequest = outcome.ok
        ? { operationId, outcome: "succeeded", ...(outcome.result !== undefined ? { result: outcome.result } : {}) }
        : { operationId, outcome: "failed", error: outcome.error };
      return withGateRetry(() => transport.complete(callId, body), deps.gateRetry);
    },
  };
}

function sagaTransport(transport: GateTransport): GateTransport & SagaTransport {
  if (!isSagaTransport(transport)) throw new Error("sagas need a transport with the run endpoints (the HTTP transport)");
  return transport;
}

function transportFor(options: CreateGateOptions): GateTransport {
  if ("transport" in options) return options.transport;
  if ("inProcess" in options) return new InProcessTransport(options.inProcess);
  return new HttpTransport(options);
}

/** The wire request a call spec stands for, in the current run context (adapters post previews with it). */
export function toBeginRequest(spec: CallSpec): BeginRequest {
  const run = currentRun();
  const runId = spec.runId ?? run?.runId;
  if (!runId) throw new Error(`gate.call("${spec.tool}") outside gate.run(): start a run or pass runId`);
  const agentId = spec.agentId ?? run?.agentId;
  // An explicit step, else the engine's step id (the call's, then the run context's).
  const stepId = spec.step ?? spec.stepId ?? run?.stepId;
  return {
    tool: spec.tool,
    runId,
    ...(stepId !== undefined ? { stepId } : {}),
    ...(spec.scope !== undefined ? { scope: spec.scope } : {}),
    ...(spec.toolCallId !== undefined ? { toolCallId: spec.toolCallId } : {}),
    ...(agentId !== undefined ? { agentId } : {}),
    ...(spec.args !== undefined ? { args: spec.args } : {}),
    ...(spec.bypass !== undefined ? { bypass: { reason: spec.bypass.reason } } : {}),
    ...(spec.bypassToken !== undefined ? { bypassToken: spec.bypassToken } : {}),
  };
}
