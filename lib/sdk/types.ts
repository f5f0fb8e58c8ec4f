import type { z } from "zod";
import type {
  BeginRequest,
  BeginResponse,
  CallStatus,
  CheckReportRequest,
  CompleteRequest,
  HeartbeatRequest,
  HeartbeatResponse,
} from "../contract/v1";
import type { CreatePreviewRequestSchema, PreviewWire } from "../contract/previews";
import type { RunCompensation } from "../contract/sagas";
import type { ToolErrorInfo } from "./errors";
import type { BudgetStatus } from "../core/budget";

export type { BeginRequest, BeginResponse, CallStatus, CheckReportRequest, CompleteRequest, HeartbeatRequest, HeartbeatResponse, PreviewWire, RunCompensation };
export type CreatePreviewRequest = z.input<typeof CreatePreviewRequestSchema>;

/**
 * How the SDK talks to a gate: over HTTP or to an in-process GateService. Both speak the wire
 * contract (lib/contract/v1.ts) and throw GateError, so everything above them is shared.
 */
export interface GateTransport {
  /** The largest request the gate accepts, where it has one (over HTTP): a result must fit in it to be stored. */
  readonly maxRequestBytes?: number;
  /** The gate's URL, where it has one (over HTTP): its pages (problem types) are linked from it. */
  readonly baseUrl?: string;
  begin(request: BeginRequest, signal?: AbortSignal): Promise<BeginResponse>;
  complete(callId: string, request: CompleteRequest): Promise<CallStatus>;
  heartbeat(callId: string, request: HeartbeatRequest): Promise<HeartbeatResponse>;
  status(callId: string): Promise<CallStatus>;
  /** Status checks: the checker could not tell (recorded on the ledger for operators). Optional for older transports. */
  reportCheck?(callId: string, request: CheckReportRequest): Promise<CallStatus>;
  /**
   * Resends: an approved request's single-use bypass token, handed out once to the API key that
   * asked; null while it is pending, denied or already handed out. Optional for older transports.
   */
  resendToken?(requestId: string, signal?: AbortSignal): Promise<string | null>;
}

/** Sagas over the wire (the HTTP transport has them): abort a run, read its plan, begin one undo. */
export interface SagaTransport {
  abortRun(runId: string, reason: string): Promise<RunCompensation>;
  compensationPlan(runId: string): Promise<RunCompensation>;
  beginCompensation(runId: string, callId: string, waitMs?: number, signal?: AbortSignal): Promise<BeginResponse>;
}

/** Previews over the wire (the HTTP transport has them): post a dry run, read it back for its token. */
export interface PreviewTransport {
  createPreview(request: CreatePreviewRequest, signal?: AbortSignal): Promise<PreviewWire>;
  readPreview(previewId: string, signal?: AbortSignal): Promise<PreviewWire>;
}

export interface Backoff {
  maxAttempts: number;
  initialDelayMs: number;
  backoffFactor: number;
  maxDelayMs: number;
}

/** What the agent asks to do. The key is derived by the gate from these, never by the model. */
export interface CallSpec {
  tool: string;
  /** Logical step, stable across re-plans ("charge the customer"). */
  step?: string;
  /**
   * A durable engine's id for this step (Vercel Workflow's stepId, a LangGraph task id, a Temporal
   * activity id), used as the step when `step` is not given; default: the run context's `stepId`.
   * Key sources, first found wins: step, stepId, scope, canonical args.
   */
  stepId?: string;
  /** The business entity it is about ("order:123"). */
  scope?: string;
  /** The model's tool-call id: recorded, keyed on only by the toolCallId strategy. */
  toolCallId?: string;
  args?: unknown;
  /** Defaults to the run context's. */
  runId?: string;
  agentId?: string;
  /**
   * Ask to run a completed call once more (a human-approved resend). Under `bypass: approval` the
   * result is `approval_required` until an operator approves the request; the same call again then
   * runs once, under the key's next generation. Without a completed outcome it runs as usual.
   */
  bypass?: { reason: string };
  /** An approved resend request's single-use token, if you hold one (calls with `bypass` fetch it themselves). */
  bypassToken?: string;
}

export interface ExecContext {
  /** The gate's key: pass it downstream as the tool's own idempotency key. */
  idempotencyKey: string;
  attempt: number;
  /** Aborted when the lease is lost or the caller aborts. */
  signal: AbortSignal;
  callId: string;
  /** True when an earlier attempt vanished (its lease expired) and this one took over. */
  recovered: boolean;
  /** False when the tool's policy never replays its outcome (the gate says so on execute; absent from older gates). */
  replayable?: boolean;
  /** HTTP tools: the response headers the tool's policy keeps for replays (absent from older gates). */
  keepHeaders?: string[];
  /**
   * Budgets: what this execution cost, sent with its complete (succeeded or failed) and added to the
   * run's spend. The last report wins; `CallOptions.cost` overrides it on success.
   */
  reportCost?: (cost: Cost) => void;
}

/** What one execution cost (budgets' `maxCostPerRun`; counted when the currency is the budget's). */
export interface Cost {
  amount: number;
  /** ISO 4217, upper case: `USD`. */
  currency: string;
}

export type Exec<T> = (ctx: ExecContext) => Promise<T> | T;

export type VerifyOutcome<T> = { found: true; result: T } | { found: false };

/** Checks downstream state by key after an attempt vanished (the gate answered `verify`). */
export type Verify<T> = (ctx: ExecContext) => Promise<VerifyOutcome<T>> | VerifyOutcome<T>;

/** The action that undoes a call's effect, should its run abort: a tool of the executor registry and its args. */
export interface CompensationSpec {
  tool: string;
  args?: unknown;
}

/** Status checks: what a tool's checker found downstream for an attempt whose outcome the gate never got. */
export type CheckOutcome<T> = { status: "found"; result: T } | { status: "not_found" } | { status: "unknown"; reason?: string };

/** Looks the effect up by the gate's key (passed downstream as the idempotency key) and the call's args. */
export type Check<T> = (key: string, args: unknown, ctx: ExecContext) => Promise<CheckOutcome<T>> | CheckOutcome<T>;

export interface CallOptions<T> {
  verify?: Verify<T>;
  /**
   * Status check on `verify`: found → completed with what was found (no second effect); not_found →
   * the tool runs under the same key; unknown → nothing runs, the call waits for an operator.
   */
  check?: Check<T>;
  /**
   * Previews: the tool's dry run, for tools under `preview: required|approve`. The SDK posts it, waits
   * for an operator's approval if the policy asks for one, and runs the tool with the token.
   */
  preview?: (args: unknown) => Promise<PreviewOf> | PreviewOf;
  /** How long to wait for a preview's approval before answering `preview_pending`. Default 300 000. */
  previewTimeoutMs?: number;
  /**
   * A preview already posted for exactly this call (e.g. by a framework adapter when its run paused
   * for approval): the call waits on that one instead of posting another, so the approval an operator
   * gave it is the one that runs.
   */
  previewId?: string;
  /** Sagas: registered with the successful complete; `gate.compensate(runId)` runs it if the run aborts. */
  compensate?: (result: T) => CompensationSpec;
  /** Budgets: what a successful execution cost, from its result (a failed one can `ctx.reportCost`). */
  cost?: (result: T) => Cost | undefined;
  signal?: AbortSignal;
  /** Keep this call's lease this short (kept alive by heartbeats); default: the gate's policy. */
  leaseSeconds?: number;
  /** How long to wait out another attempt's live lease before answering `in_progress`. */
  maxWaitMs?: number;
  /** Retries of retryable tool failures; default: the gate's advice. `false`: surface the first failure. */
  toolRetry?: Partial<Backoff> | false;
  /** Overrides the default retryable/permanent classification of thrown errors. */
  classifyError?: (error: unknown) => ToolErrorInfo;
}

/** What a dry run says a call would do. */
export interface PreviewOf {
  summary: string;
  affected: string[];
}

/** The gate's loop detector flagged this call (policy `loop.action: warn`): it went ahead anyway. */
export interface LoopWarning {
  reason: "loop_detected";
  pattern: string[];
  repeats: number;
}

interface CallRef {
  callId: string;
  key: string;
  loopWarning?: LoopWarning;
}

/**
 * Every outcome of `call()` as a value the agent can show to the model. `ok: true` means the tool's
 * result is in `value` — whether it ran now, ran before (replay) or was found done by verify.
 */
export type CallResult<T> =
  | (CallRef & {
      ok: true;
      status: "executed";
      value: T;
      attempt: number;
      recovered: boolean;
      recorded: boolean;
      /**
       * Set when the tool ran but its value cannot be stored as JSON (too deep or wide, a BigInt, a
       * cycle): the gate recorded the call as succeeded without a result, so it still never runs
       * twice, and later replays carry `null`. Says why.
       */
      resultNotStored?: string;
    })
  | (CallRef & {
      ok: true;
      status: "replayed";
      value: T;
      firstSeenAt: string;
      completedAt: string;
      replays: number;
      argsMismatch: boolean;
    })
  | (CallRef & { ok: true; status: "verified"; value: T; attempt: number })
  /** The tool started a long-running operation (exec returned `accepted(…)`), now or in an earlier attempt. */
  | (CallRef & { ok: true; status: "accepted"; value: T; operationId: string; statusUrl?: string; replayed: boolean })
  | (CallRef & { ok: false; status: "failed"; error: ToolErrorInfo; replayed: boolean; attempt?: number })
  | (CallRef & { ok: false; status: "in_progress"; waitedMs: number })
  /** The checker could not tell whether an earlier attempt's effect happened: left to an operator. */
  | (CallRef & { ok: false; status: "unknown_outcome"; reason?: string })
  | (CallRef & { ok: false; status: "refused"; original: { status: "succeeded" | "failed"; completedAt: string } })
  /** Sagas: the run was aborted; it takes no new forward steps (`message` says so to the model). */
  | { ok: false; status: "run_aborted"; key: string; message: string }
  | (CallRef & { ok: false; status: "conflict" })
  | (CallRef & { ok: false; status: "lease_lost"; executed: boolean; value?: T; error?: ToolErrorInfo })
  | { ok: false; status: "approval_required"; requestId: string }
  /** The tool needs a preview (policy `preview`) and the call gave no `preview` dry run. */
  | { ok: false; status: "preview_required"; key: string; mode: "required" | "approve" }
  | { ok: false; status: "preview_denied"; previewId: string; note: string | null }
  /** Still waiting for an operator's approval when `previewTimeoutMs` ran out: call again later. */
  | { ok: false; status: "preview_pending"; previewId: string }
  /** loop_detected: the run repeats a cycle (`pattern`); budget_exceeded: the run spent its budget (`message`, `budget`). */
  | { ok: false; status: "blocked"; reason: "loop_detected" | "budget_exceeded"; pattern: string[]; repeats: number; message?: string; budget?: BudgetStatus };

export type CallStatusName = CallResult<unknown>["status"];

/** Settings of one gate client, shared by all its calls (lib/sdk/call.ts runs a call with them). */
export interface CallDeps {
  transport: GateTransport;
  gateRetry: Backoff;
  waitMs: number;
  maxWaitMs: number;
  leaseSeconds?: number;
  heartbeat: boolean;
  toolRetry?: Partial<Backoff> | false;
  classifyError: (error: unknown) => ToolErrorInfo;
}
