import { sameArgs } from "./fingerprint";
import { type EffectivePolicy, type ToolPolicy, keepSeconds, replaysOutcomes } from "./policy";
import type { PreparedCall } from "./prepare-call";
import {
  type BeginDecision,
  type CallRecord,
  isExpired,
  leaseIsLive,
  parseAccepted,
  parseError,
  parseJsonText,
} from "./record";

export interface PlanEnv {
  now: number;
  policy: EffectivePolicy;
  newCallId: () => string;
  /** The lease token of a record's attempt (the server derives it, so an earlier attempt's token is recognised). */
  newLeaseToken: (callId: string, attempt: number) => string;
  /** The key generation a claimed record belongs to (lib/server/resend-generations.ts); default 1. */
  generation?: number;
}

/**
 * What the store must do to carry out a begin. Every write is conditional (insert-if-absent or
 * compare-and-set on `version`), so when it does not apply the caller re-reads and plans again.
 */
export type BeginPlan =
  | { op: "insert"; record: CallRecord; decision: BeginDecision }
  | { op: "update"; record: CallRecord; expectedVersion: number; decision: BeginDecision }
  | { op: "replay"; record: CallRecord; decision: Extract<BeginDecision, { decision: "replay" }> }
  | { op: "none"; record: CallRecord; decision: BeginDecision; argsMismatch: boolean };

/** Tools that never dedupe still get a row of their own, so their completes are recorded. */
export function alwaysExecutes(policy: ToolPolicy): boolean {
  return policy.effect === "read" || policy.onDuplicate === "execute";
}

export function planBegin(existing: CallRecord | null, call: PreparedCall, env: PlanEnv): BeginPlan {
  const { now, policy } = env;
  if (alwaysExecutes(policy.policy)) {
    const claimed = claimRecord(call, env);
    const record = { ...claimed, key: `${call.key}:${claimed.id}` };
    return { op: "insert", record, decision: executeDecision(record, env, false) };
  }
  if (existing === null) {
    const record = claimRecord(call, env);
    return { op: "insert", record, decision: executeDecision(record, env, false) };
  }
  if (isExpired(existing, now)) {
    const record = claimRecord(call, env, { version: existing.version + 1 });
    return { op: "update", record, expectedVersion: existing.version, decision: executeDecision(record, env, false) };
  }

  const argsMismatch = !sameArgs(existing.argsFingerprint, call);
  if (argsMismatch && policy.policy.onArgsMismatch === "reject") {
    return { op: "none", record: existing, argsMismatch, decision: { decision: "conflict", callId: existing.id, key: existing.key } };
  }

  switch (existing.state) {
    case "in_progress":
      // Silent for the lease plus its grace, the holder is dead; within the grace it is only late.
      if (leaseIsLive(existing, now - policy.policy.leaseGraceSeconds * 1000)) {
        const retryAfterMs = Math.max(1, Math.min(existing.leaseExpiresAt! + policy.policy.leaseGraceSeconds * 1000 - now, policy.policy.retry.initialDelayMs));
        return {
          op: "none",
          record: existing,
          argsMismatch,
          decision: { decision: "in_progress", callId: existing.id, key: existing.key, retryAfterMs, retry: policy.policy.retry },
        };
      }
      return reclaim(existing, call, env, true);
    case "released":
      return reclaim(existing, call, env, false);
    case "failed":
      if (!policy.policy.cacheFailures) return reclaim(existing, call, env, false);
      return duplicateOfCompleted(existing, argsMismatch, env);
    case "succeeded":
      return duplicateOfCompleted(existing, argsMismatch, env);
    case "accepted":
      return replayAccepted(existing, argsMismatch);
  }
}

/**
 * A started operation is neither done nor gone: whatever `onDuplicate` says, the caller gets its
 * id to poll, because starting it again is exactly the duplicate the gate exists to prevent.
 */
function replayAccepted(existing: CallRecord, argsMismatch: boolean): BeginPlan {
  const { operationId, statusUrl } = parseAccepted(existing.result);
  return replayOf(existing, argsMismatch, { status: "accepted", operationId, ...(statusUrl !== undefined ? { statusUrl } : {}) });
}

type ReplayOutcome = Pick<Extract<BeginDecision, { decision: "replay" }>, "status" | "result" | "error" | "operationId" | "statusUrl">;

/** Every replay of a stored record says the same about the record, whatever its outcome. */
function replayOf(existing: CallRecord, argsMismatch: boolean, outcome: ReplayOutcome): BeginPlan {
  return {
    op: "replay",
    record: existing,
    decision: {
      decision: "replay",
      callId: existing.id,
      key: existing.key,
      ...outcome,
      firstSeenAt: existing.firstSeenAt,
      completedAt: existing.completedAt ?? existing.updatedAt,
      expiresAt: existing.expiresAt,
      replays: existing.replays + 1,
      argsMismatch,
    },
  };
}

function duplicateOfCompleted(existing: CallRecord, argsMismatch: boolean, env: PlanEnv): BeginPlan {
  const status = existing.state as "succeeded" | "failed";
  const completedAt = existing.completedAt ?? existing.updatedAt;
  if (env.policy.policy.onDuplicate === "refuse") {
    return {
      op: "none",
      record: existing,
      argsMismatch,
      decision: { decision: "refused", callId: existing.id, key: existing.key, original: { status, completedAt } },
    };
  }
  return replayOf(existing, argsMismatch, {
    status,
    ...(status === "succeeded" ? { result: parseJsonText(existing.result) ?? null } : { error: parseError(existing.error) }),
  });
}

/** A new attempt on a key whose previous attempt ended without a cacheable outcome. */
function reclaim(existing: CallRecord, call: PreparedCall, env: PlanEnv, leaseExpired: boolean): BeginPlan {
  const record = claimRecord(call, env, {
    id: existing.id,
    key: existing.key,
    attempt: existing.attempt + 1,
    replays: existing.replays,
    firstSeenAt: existing.firstSeenAt,
    version: existing.version + 1,
  });
  const verify = leaseExpired && env.policy.policy.effect === "async";
  const decision: BeginDecision = verify
    ? {
        decision: "verify",
        callId: record.id,
        key: record.key,
        leaseToken: record.leaseToken!,
        leaseExpiresAt: record.leaseExpiresAt!,
        attempt: record.attempt,
      }
    : executeDecision(record, env, leaseExpired);
  return { op: "update", record, expectedVersion: existing.version, decision };
}

function claimRecord(call: PreparedCall, env: PlanEnv, overrides: Partial<CallRecord> = {}): CallRecord {
  const { now, policy } = env;
  const leaseExpiresAt = now + policy.policy.leaseSeconds * 1000;
  const id = overrides.id ?? env.newCallId();
  const attempt = overrides.attempt ?? 1;
  return {
    id,
    projectId: call.projectId,
    key: call.key,
    tool: call.tool,
    runId: call.runId,
    stepId: call.stepId,
    scope: call.scope,
    agentId: call.agentId,
    toolCallId: call.toolCallId,
    strategy: call.strategy,
    argsFingerprint: call.argsFingerprint,
    args: call.argsText,
    state: "in_progress",
    attempt: 1,
    leaseToken: env.newLeaseToken(id, attempt),
    leaseExpiresAt,
    result: null,
    error: null,
    replays: 0,
    firstSeenAt: now,
    completedAt: null,
    // Never expired (treated as absent, purged) while its holder may be alive: the lease plus its grace.
    expiresAt: Math.max(now + keepSeconds(policy.policy, call.runWindowed) * 1000, leaseExpiresAt + policy.policy.leaseGraceSeconds * 1000),
    updatedAt: now,
    version: 0,
    policyVersion: policy.version,
    generation: env.generation ?? 1,
    compensation: null,
    ...overrides,
  };
}

function executeDecision(record: CallRecord, env: PlanEnv, recovered: boolean): BeginDecision {
  return {
    decision: "execute",
    callId: record.id,
    key: record.key,
    leaseToken: record.leaseToken!,
    leaseExpiresAt: record.leaseExpiresAt!,
    attempt: record.attempt,
    recovered,
    retry: env.policy.policy.retry,
    replayable: replaysOutcomes(env.policy.policy),
    keepHeaders: env.policy.policy.keepHeaders,
  };
}
