import type { KeyStrategy, RetryAdvice } from "./policy";
import type { BudgetStatus } from "./budget";

/** `accepted`: the tool started a long-running operation and answered with its id, not its outcome. */
export type RecordState = "in_progress" | "succeeded" | "failed" | "released" | "accepted";

/** What an accepted record keeps in `result` until a final complete replaces it. */
export interface AcceptedOperation {
  operationId: string;
  statusUrl?: string;
}

export interface ErrorInfo {
  message: string;
  retryable: boolean;
  retryAfterSeconds?: number;
  /** A permanent failure's own answer (an HTTP tool's 4xx response), replayed with it. */
  result?: unknown;
}

/** The single row per key: the state machine plus the cached outcome. Times are epoch ms. */
export interface CallRecord {
  id: string;
  projectId: string;
  key: string;
  tool: string;
  runId: string;
  stepId: string | null;
  scope: string | null;
  agentId: string | null;
  toolCallId: string | null;
  strategy: KeyStrategy;
  argsFingerprint: string;
  /** Redacted canonical args as JSON text. */
  args: string | null;
  state: RecordState;
  attempt: number;
  /** The current (or, once completed, the last) lease; completes carrying another token lost it. */
  leaseToken: string | null;
  leaseExpiresAt: number | null;
  /** JSON text of the tool's result. */
  result: string | null;
  /** JSON text of an ErrorInfo. */
  error: string | null;
  replays: number;
  firstSeenAt: number;
  completedAt: number | null;
  expiresAt: number;
  updatedAt: number;
  /** Bumped on every state change: the compare-and-set guard of concurrent writers. */
  version: number;
  policyVersion: number;
  /**
   * On a key's first record: the key's newest generation (1 until an approved resend raises it),
   * which begins follow to the record keyed `key:g<n>`. On a resend's record: its own generation.
   */
  generation: number;
  /** Sagas: JSON of the Compensation a successful complete registered (args redacted like the call's). */
  compensation: string | null;
}

/** The action that undoes a call's effect: a tool and its args, run as a gated call of its own. */
export interface Compensation {
  tool: string;
  args?: unknown;
}

export type BeginDecisionName =
  | "execute"
  | "replay"
  | "in_progress"
  | "verify"
  | "refused"
  | "conflict"
  | "approval_required"
  | "preview_required"
  | "blocked";

/** Set when the run's loop detector tripped under `loop.action: warn`: the decision stands, flagged. */
export interface LoopWarning {
  reason: "loop_detected";
  pattern: string[];
  repeats: number;
}

type Flagged = { loopWarning?: LoopWarning };

export type BeginDecision =
  | ({
      decision: "execute";
      callId: string;
      key: string;
      leaseToken: string;
      leaseExpiresAt: number;
      attempt: number;
      recovered: boolean;
      retry: RetryAdvice;
      /** False when the policy never replays this tool's outcome (effect read, onDuplicate execute or refuse). */
      replayable: boolean;
      /** HTTP tools: the response headers the policy keeps for replays. */
      keepHeaders: string[];
      /** Shadow mode: what the gate would have answered under enforce (`would_replay`, …). */
      shadowDecision?: string;
    } & Flagged)
  | ({
      decision: "replay";
      callId: string;
      key: string;
      status: "succeeded" | "failed" | "accepted";
      result?: unknown;
      error?: ErrorInfo;
      /** Set while the operation runs (status `accepted`): poll it instead of starting it again. */
      operationId?: string;
      statusUrl?: string;
      firstSeenAt: number;
      completedAt: number;
      expiresAt: number;
      replays: number;
      argsMismatch: boolean;
    } & Flagged)
  | ({ decision: "in_progress"; callId: string; key: string; retryAfterMs: number; retry: RetryAdvice } & Flagged)
  | ({ decision: "verify"; callId: string; key: string; leaseToken: string; leaseExpiresAt: number; attempt: number } & Flagged)
  | ({
      decision: "refused";
      callId: string;
      key: string;
      original: { status: "succeeded" | "failed"; completedAt: number };
    } & Flagged)
  /** Sagas: the run was aborted; it takes no new forward steps (its undos still run). */
  | { decision: "refused"; reason: "run_aborted"; key: string; message: string }
  | ({ decision: "conflict"; callId: string; key: string } & Flagged)
  | { decision: "approval_required"; requestId: string }
  /** Previews: the tool's policy wants its dry run (and, under `approve`, a human) before it first runs. */
  | { decision: "preview_required"; key: string; mode: "required" | "approve"; argsFingerprint: string }
  | { decision: "blocked"; reason: "loop_detected"; pattern: string[]; repeats: number }
  /** Budgets: `pattern` is empty and `repeats` 0, so clients that read only those keep working. */
  | { decision: "blocked"; reason: "budget_exceeded"; pattern: string[]; repeats: number; message: string; budget: BudgetStatus };

export function parseJsonText(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

export function parseError(text: string | null): ErrorInfo | undefined {
  return text === null ? undefined : (JSON.parse(text) as ErrorInfo);
}

export function parseAccepted(text: string | null): AcceptedOperation {
  return JSON.parse(text ?? "{}") as AcceptedOperation;
}

export function isExpired(record: Pick<CallRecord, "expiresAt">, now: number): boolean {
  return record.expiresAt <= now;
}

export function leaseIsLive(record: Pick<CallRecord, "state" | "leaseExpiresAt">, now: number): boolean {
  return record.state === "in_progress" && record.leaseExpiresAt !== null && record.leaseExpiresAt > now;
}
