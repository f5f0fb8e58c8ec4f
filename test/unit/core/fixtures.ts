import { expect } from "vitest";
import type { BeginPlan, PlanEnv } from "../../../lib/core/plan-begin";
import { planBegin } from "../../../lib/core/plan-begin";
import { DEFAULT_EFFECTIVE_POLICY, DEFAULT_POLICY, type EffectivePolicy, type ToolPolicy } from "../../../lib/core/policy";
import { argsFingerprinter } from "../../../lib/core/fingerprint";
import { type BeginCall, type PreparedCall, prepareCall } from "../../../lib/core/prepare-call";
import type { CallRecord } from "../../../lib/core/record";

/** A fixed installation secret, so fingerprints are stable from test to test. */
export const TEST_FINGERPRINTER = argsFingerprinter("test-install-secret");

/** A fixed clock: every plan in these tests is taken at NOW unless a test moves it. */
export const NOW = 1_700_000_000_000;
export const SECOND = 1_000;

/**
 * These tests pin the lease's own boundary (expired at leaseExpiresAt exactly), so their default
 * policy has no liveness grace; the grace is tested on its own (plan-begin.test.ts).
 */
export const EXACT_LEASE_POLICY: EffectivePolicy = { ...DEFAULT_EFFECTIVE_POLICY, policy: { ...DEFAULT_POLICY, leaseGraceSeconds: 0 } };

/** Deterministic ids: call-1, call-2, … and lease-1, lease-2, … per env. */
export function makeEnv(policy: EffectivePolicy = EXACT_LEASE_POLICY, now: number = NOW): PlanEnv {
  let calls = 0;
  let leases = 0;
  return { now, policy, newCallId: () => `call-${++calls}`, newLeaseToken: () => `lease-${++leases}` };
}

export function policyWith(overrides: Partial<ToolPolicy>, version = 7): EffectivePolicy {
  return { policy: { ...DEFAULT_POLICY, leaseGraceSeconds: 0, ...overrides }, version };
}

export const BASE_CALL: BeginCall = {
  projectId: "proj-1",
  tool: "charge_card",
  runId: "run-1",
  stepId: "charge-customer",
  scope: null,
  toolCallId: "toolu_01",
  agentId: null,
  args: { amount: 4200, currency: "EUR" },
};

export function makeCall(overrides: Partial<BeginCall> = {}, policy: ToolPolicy = DEFAULT_POLICY): PreparedCall {
  return prepareCall({ ...BASE_CALL, ...overrides }, policy, TEST_FINGERPRINTER);
}

/**
 * A record as the store would hold it: claimed by a real planBegin at `claimedAt`, then overridden.
 * Default: claimed 10 s before NOW, version 3 (so version arithmetic is visible), attempt 1.
 */
export function makeRecord(overrides: Partial<CallRecord> = {}, call: PreparedCall = makeCall()): CallRecord {
  const claimedAt = NOW - 10 * SECOND;
  const plan = planBegin(null, call, { ...makeEnv(DEFAULT_EFFECTIVE_POLICY, claimedAt), newCallId: () => "orig-call", newLeaseToken: () => "orig-lease" });
  return { ...plan.record, version: 3, ...overrides };
}

/** A completed record: succeeded with a result at NOW - 5 s. */
export function succeededRecord(overrides: Partial<CallRecord> = {}, call?: PreparedCall): CallRecord {
  return makeRecord(
    {
      state: "succeeded",
      result: JSON.stringify({ chargeId: "ch_1" }),
      leaseExpiresAt: null,
      completedAt: NOW - 5 * SECOND,
      updatedAt: NOW - 5 * SECOND,
      replays: 2,
      ...overrides,
    },
    call,
  );
}

/** Compare-and-set discipline: an update names the version it read and bumps it by exactly one. */
export function expectCas(plan: { op: string; record: CallRecord; expectedVersion?: number }, existing: CallRecord): void {
  expect(plan.op).toBe("update");
  expect(plan.expectedVersion).toBe(existing.version);
  expect(plan.record.version).toBe(existing.version + 1);
}

/** For an execute/verify decision: the record holds exactly the lease the decision hands out. */
export function expectLeaseHandedOut(plan: BeginPlan, env: PlanEnv): void {
  const d = plan.decision;
  if (d.decision !== "execute" && d.decision !== "verify") throw new Error(`expected a lease, got ${d.decision}`);
  expect(plan.record.state).toBe("in_progress");
  expect(d.leaseToken).toBe(plan.record.leaseToken);
  expect(d.leaseExpiresAt).toBe(plan.record.leaseExpiresAt);
  expect(d.leaseExpiresAt).toBe(env.now + env.policy.policy.leaseSeconds * 1000);
  expect(d.callId).toBe(plan.record.id);
  expect(d.key).toBe(plan.record.key);
  expect(d.attempt).toBe(plan.record.attempt);
  expect(plan.record.expiresAt).toBeGreaterThanOrEqual(plan.record.leaseExpiresAt!);
  expect(plan.record.result).toBeNull();
  expect(plan.record.error).toBeNull();
  expect(plan.record.completedAt).toBeNull();
  expect(plan.record.policyVersion).toBe(env.policy.version);
}
