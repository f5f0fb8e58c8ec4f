import type { EffectivePolicy } from "./policy";
import type { CallRecord, ErrorInfo } from "./record";
import { redact } from "./redact";

export type CompleteOutcome =
  | { outcome: "succeeded"; result?: unknown }
  | { outcome: "failed"; error: ErrorInfo };

export type CompletePlan =
  | { op: "update"; record: CallRecord; expectedVersion: number }
  /** The same lease already completed this record: a retried complete, answered as before. */
  | { op: "already"; record: CallRecord }
  /** Another attempt owns the record now: this attempt's effect may be a duplicate. */
  | { op: "lease_lost"; record: CallRecord };

/**
 * A complete is accepted from the lease that currently owns the record, even after the lease
 * expired, as long as nobody else claimed it: no second attempt ran, so no duplicate happened.
 */
export function planComplete(
  record: CallRecord,
  leaseToken: string,
  outcome: CompleteOutcome,
  policy: EffectivePolicy,
  now: number,
): CompletePlan {
  if (record.leaseToken !== leaseToken) return { op: "lease_lost", record };
  if (record.state !== "in_progress") return { op: "already", record };

  const ttlExpiry = now + policy.policy.ttlSeconds * 1000;
  const base = { ...record, completedAt: now, updatedAt: now, version: record.version + 1, leaseExpiresAt: null };
  if (outcome.outcome === "succeeded") {
    // Masked before it is stored: replays then return the masked result too, never the secret.
    const result = outcome.result === undefined ? null : JSON.stringify(redact(outcome.result, policy.policy.redactFields));
    return {
      op: "update",
      expectedVersion: record.version,
      record: { ...base, state: "succeeded", result, error: null, expiresAt: ttlExpiry },
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
      error: JSON.stringify(outcome.error),
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
