import type { EffectivePolicy } from "./policy";
import { type AcceptedOperation, type CallRecord, type Compensation, type ErrorInfo, parseAccepted } from "./record";
import { redact } from "./redact";

/** Status checks: what a checker found downstream after `verify` (recorded on the ledger). */
export type CheckOutcome = "found" | "not_found";

/** A final outcome may name the operation it finishes instead of holding the lease (async operations). */
/** Budgets: what an execution cost, as its complete reported it. */
export interface ReportedCost {
  amount: number;
  currency: string;
}

export type CompleteOutcome =
  | { outcome: "succeeded"; result?: unknown; operationId?: string; compensation?: Compensation; check?: CheckOutcome; cost?: ReportedCost }
  | { outcome: "failed"; error: ErrorInfo; operationId?: string; check?: CheckOutcome; cost?: ReportedCost }
  | { outcome: "accepted"; operationId: string; statusUrl?: string; cost?: ReportedCost };

export type CompletePlan =
  | { op: "update"; record: CallRecord; expectedVersion: number }
  /** The same lease already completed this record: a retried complete, answered as before. */
  | { op: "already"; record: CallRecord }
  /** Another attempt owns the record now: this attempt's effect may be a duplicate. */
  | { op: "lease_lost"; record: CallRecord }
  /** A final complete naming an operation the record is not waiting for. */
  | { op: "operation_mismatch"; record: CallRecord };

/**
 * A complete is accepted from the lease that currently owns the record, even after the lease
 * expired, as long as nobody else claimed it: no second attempt ran, so no duplicate happened.
 * An accepted operation is finished by that lease or by whoever holds its operation id (the job's
 * own callback may finish it, long after the agent's process is gone).
 */
export function planComplete(
  record: CallRecord,
  leaseToken: string | null,
  outcome: CompleteOutcome,
  policy: EffectivePolicy,
  now: number,
): CompletePlan {
  if (record.state === "accepted") return planFinishOperation(record, leaseToken, outcome, policy, now);
  if (leaseToken === null) return outcome.operationId === undefined ? { op: "lease_lost", record } : { op: "operation_mismatch", record };
  if (record.leaseToken !== leaseToken) return { op: "lease_lost", record };
  if (record.state !== "in_progress") return { op: "already", record };
  return finalPlan(record, outcome, policy, now);
}

function planFinishOperation(
  record: CallRecord,
  leaseToken: string | null,
  outcome: CompleteOutcome,
  policy: EffectivePolicy,
  now: number,
): CompletePlan {
  const { operationId } = parseAccepted(record.result);
  // A retried "accepted" complete of the same operation: answered as before.
  if (outcome.outcome === "accepted") return outcome.operationId === operationId ? { op: "already", record } : { op: "operation_mismatch", record };
  if (outcome.operationId !== undefined && outcome.operationId !== operationId) return { op: "operation_mismatch", record };
  if (outcome.operationId === undefined && (leaseToken === null || leaseToken !== record.leaseToken)) return { op: "lease_lost", record };
  return finalPlan(record, outcome, policy, now);
}

function finalPlan(record: CallRecord, outcome: CompleteOutcome, policy: EffectivePolicy, now: number): CompletePlan {
  const ttlExpiry = now + policy.policy.ttlSeconds * 1000;
  const base = { ...record, completedAt: now, updatedAt: now, version: record.version + 1, leaseExpiresAt: null };
  if (outcome.outcome === "accepted") {
    const operation: AcceptedOperation = { operationId: outcome.operationId, ...(outcome.statusUrl !== undefined ? { statusUrl: outcome.statusUrl } : {}) };
    return {
      op: "update",
      expectedVersion: record.version,
      record: { ...base, state: "accepted", result: JSON.stringify(operation), error: null, expiresAt: now + policy.policy.acceptedTtlSeconds * 1000 },
    };
  }
  if (outcome.outcome === "succeeded") {
    // Masked before it is stored: replays then return the masked result too, never the secret.
    const result = outcome.result === undefined ? null : JSON.stringify(redact(outcome.result, policy.policy.redactFields));
    // The undo's args are masked like the call's: an executor never gets a secret back from the gate.
    const compensation =
      outcome.compensation === undefined
        ? record.compensation
        : JSON.stringify({ tool: outcome.compensation.tool, args: redact(outcome.compensation.args ?? {}, policy.policy.redactFields) });
    return {
      op: "update",
      expectedVersion: record.version,
      record: { ...base, state: "succeeded", result, error: null, expiresAt: ttlExpiry, compensation },
    };
  }
  const cacheable = !outcome.error.retryable && policy.policy.cacheFailures;
  return {
    op: "update",
    expectedVersion: record.version,
    record: {
      ...base,
      state: cacheable ? "failed" : "released",
      result: null,
      // A failure's own answer is masked as a success's result is.
      error: JSON.stringify(outcome.error.result === undefined ? outcome.error : { ...outcome.error, result: redact(outcome.error.result, policy.policy.redactFields) }),
      expiresAt: ttlExpiry,
    },
  };
}

export const MAX_LEASE_EXTENSION_SECONDS = 3600;

export type HeartbeatPlan =
  | { op: "update"; record: CallRecord; expectedVersion: number }
  /** The lease's own attempt already completed (a beat racing its complete): nothing to extend. */
  | { op: "already"; record: CallRecord }
  | { op: "lease_lost"; record: CallRecord };

export function planHeartbeat(
  record: CallRecord,
  leaseToken: string,
  extendSeconds: number,
  now: number,
): HeartbeatPlan {
  if (record.leaseToken !== leaseToken) return { op: "lease_lost", record };
  if (record.state !== "in_progress") return { op: "already", record };
  const leaseExpiresAt = now + Math.min(extendSeconds, MAX_LEASE_EXTENSION_SECONDS) * 1000;
  return {
    op: "update",
    expectedVersion: record.version,
    record: {
      ...record,
      leaseExpiresAt,
      expiresAt: Math.max(record.expiresAt, leaseExpiresAt),
      updatedAt: now,
      version: record.version + 1,
    },
  };
}
