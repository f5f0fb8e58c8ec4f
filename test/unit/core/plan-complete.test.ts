import { describe, it, expect } from "vitest";
import { planBegin } from "../../../lib/core/plan-begin";
import { type CompleteOutcome, MAX_LEASE_EXTENSION_SECONDS, planComplete, planHeartbeat } from "../../../lib/core/plan-complete";
import { DEFAULT_EFFECTIVE_POLICY, type EffectivePolicy } from "../../../lib/core/policy";
import type { CallRecord, RecordState } from "../../../lib/core/record";
import { expectCas, makeCall, makeEnv, NOW, policyWith, SECOND } from "./fixtures";

const CALL = makeCall();
const T = NOW + 5 * SECOND; // completes land 5 s into a 30 s lease
const DAY = 86_400 * SECOND;

/** A fresh claim at NOW: version 0, token "lease-1", lease until NOW + 30 s. */
function claim(policy: EffectivePolicy = DEFAULT_EFFECTIVE_POLICY): CallRecord {
  return planBegin(null, CALL, makeEnv(policy)).record;
}

/** Complete `record` and return the stored row, asserting the plan applies. */
function completed(record: CallRecord, outcome: CompleteOutcome, policy = DEFAULT_EFFECTIVE_POLICY, now = T): CallRecord {
  const plan = planComplete(record, record.leaseToken!, outcome, policy, now);
  if (plan.op !== "update") throw new Error(`expected update, got ${plan.op}`);
  return plan.record;
}

const ok: CompleteOutcome = { outcome: "succeeded", result: { chargeId: "ch_1" } };
const permanent: CompleteOutcome = { outcome: "failed", error: { message: "card declined", retryable: false } };
const transient: CompleteOutcome = { outcome: "failed", error: { message: "upstream 503", retryable: true, retryAfterSeconds: 2 } };

interface Row {
  name: string;
  outcome: CompleteOutcome;
  policy?: EffectivePolicy;
  state: RecordState;
  result: string | null;
  error: string | null;
}

const ROWS: Row[] = [
  { name: "succeeded with a result → succeeded", outcome: ok, state: "succeeded", result: '{"chargeId":"ch_1"}', error: null },
  { name: "succeeded without a result → succeeded, result null", outcome: { outcome: "succeeded" }, state: "succeeded", result: null, error: null },
  { name: "failed, not retryable → failed (cached)", outcome: permanent, state: "failed", result: null, error: JSON.stringify(permanent.error) },
  { name: "failed, retryable → released", outcome: transient, state: "released", result: null, error: JSON.stringify(transient.error) },
  { name: "cacheFailures false + permanent → released", outcome: permanent, policy: policyWith({ cacheFailures: false }), state: "released", result: null, error: JSON.stringify(permanent.error) },
  { name: "cacheFailures false + succeeded → succeeded", outcome: ok, policy: policyWith({ cacheFailures: false }), state: "succeeded", result: '{"chargeId":"ch_1"}', error: null },
  { name: "custom TTL sets expiresAt", outcome: ok, policy: policyWith({ ttlSeconds: 60 }), state: "succeeded", result: '{"chargeId":"ch_1"}', error: null },
];

describe("planComplete — outcomes with the current lease", () => {
  it.each(ROWS.map((r) => [r.name, r] as const))("%s", (_name, row) => {
    const policy = row.policy ?? DEFAULT_EFFECTIVE_POLICY;
    const record = claim(policy);
    const plan = planComplete(record, "lease-1", row.outcome, policy, T);
    expectCas(plan, record);
    expect(plan.record).toMatchObject({
      state: row.state,
      result: row.result,
      error: row.error,
      completedAt: T,
      updatedAt: T,
      expiresAt: T + policy.policy.ttlSeconds * SECOND,
      leaseExpiresAt: null,
      // identity and lease history are kept
      leaseToken: "lease-1",
      id: record.id,
      key: record.key,
      attempt: record.attempt,
      firstSeenAt: record.firstSeenAt,
      argsFingerprint: record.argsFingerprint,
    });
  });

  it("a late complete after lease expiry, with no takeover, is accepted", () => {
    const record = claim();
    const late = record.leaseExpiresAt! + 10 * 60 * SECOND;
    const plan = planComplete(record, "lease-1", ok, DEFAULT_EFFECTIVE_POLICY, late);
    expectCas(plan, record);
    expect(plan.record).toMatchObject({ state: "succeeded", completedAt: late, expiresAt: late + DAY });
  });
});

describe("planComplete — lease ownership", () => {
  it("a wrong token is lease_lost and changes nothing", () => {
    const record = claim();
    const plan = planComplete(record, "lease-999", ok, DEFAULT_EFFECTIVE_POLICY, T);
    expect(plan.op).toBe("lease_lost");
    expect(plan.record).toBe(record);
  });

  it.each([
    ["succeeded", ok],
    ["failed", permanent],
    ["released", transient],
  ] as const)("the same token after completion (%s) is answered 'already' with the stored row", (state, outcome) => {
    const done = completed(claim(), outcome);
    expect(done.state).toBe(state);
    for (const retried of [outcome, ok, permanent]) {
      const plan = planComplete(done, "lease-1", retried, DEFAULT_EFFECTIVE_POLICY, T + SECOND);
      expect(plan.op).toBe("already");
      expect(plan.record).toBe(done);
    }
    expect(planComplete(done, "lease-2", ok, DEFAULT_EFFECTIVE_POLICY, T).op).toBe("lease_lost");
  });

  it("after a takeover the old lease is lost and the new one completes", () => {
    const record = claim();
    const takeover = planBegin(record, CALL, { ...makeEnv(undefined, NOW + 31 * SECOND), newLeaseToken: () => "lease-B" });
    expect(takeover.decision).toMatchObject({ decision: "execute", recovered: true, attempt: 2, leaseToken: "lease-B" });
    const current = takeover.record;

    const stale = planComplete(current, "lease-1", ok, DEFAULT_EFFECTIVE_POLICY, NOW + 32 * SECOND);
    expect(stale.op).toBe("lease_lost");
    expect(stale.record).toBe(current);

    const fresh = planComplete(current, "lease-B", ok, DEFAULT_EFFECTIVE_POLICY, NOW + 33 * SECOND);
    expectCas(fresh, current);
    expect(fresh.record.version).toBe(2);
    // once the new holder completed, the old token is still lost, never "already"
    expect(planComplete(fresh.record, "lease-1", ok, DEFAULT_EFFECTIVE_POLICY, NOW + 34 * SECOND).op).toBe("lease_lost");
  });
});

describe("planComplete → planBegin round trips", () => {
  it("a success replays until its TTL, then the key is claimed afresh", () => {
    const done = completed(claim(), ok);
    const replay = planBegin(done, CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY, T + DAY - 1));
    expect(replay.decision).toMatchObject({ decision: "replay", status: "succeeded", result: { chargeId: "ch_1" }, completedAt: T, expiresAt: T + DAY, replays: 1 });

    const fresh = planBegin(done, CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY, T + DAY));
    expectCas(fresh, done);
    expect(fresh.decision).toMatchObject({ decision: "execute", attempt: 1, recovered: false });
  });

  it("a permanent failure replays its error", () => {
    const done = completed(claim(), permanent);
    const plan = planBegin(done, CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY, T + SECOND));
    expect(plan.decision).toMatchObject({ decision: "replay", status: "failed", error: permanent.error });
  });

  it("a retryable failure lets the next begin run attempt 2, and the old lease is then lost", () => {
    const done = completed(claim(), transient);
    const env = { ...makeEnv(DEFAULT_EFFECTIVE_POLICY, T + SECOND), newLeaseToken: () => "lease-2" };
    const next = planBegin(done, CALL, env);
    expectCas(next, done);
    expect(next.decision).toMatchObject({ decision: "execute", attempt: 2, recovered: false, leaseToken: "lease-2" });
    expect(next.record).toMatchObject({ error: null, completedAt: null, state: "in_progress" });
    expect(planComplete(next.record, "lease-1", ok, DEFAULT_EFFECTIVE_POLICY, T + 2 * SECOND).op).toBe("lease_lost");
  });
});

describe("planHeartbeat", () => {
  it("extends the lease from now and bumps the version", () => {
    const record = claim();
    const plan = planHeartbeat(record, "lease-1", 60, T);
    expectCas(plan, record);
    expect(plan.record).toMatchObject({ state: "in_progress", leaseToken: "lease-1", leaseExpiresAt: T + 60 * SECOND, updatedAt: T, expiresAt: record.expiresAt });
  });

  it.each([
    [3_599, 3_599],
    [3_600, 3_600],
    [3_601, 3_600],
    [1_000_000, 3_600],
  ])("extendSeconds %i gives a lease of %i s", (asked, granted) => {
    expect(MAX_LEASE_EXTENSION_SECONDS).toBe(3_600);
    const plan = planHeartbeat(claim(), "lease-1", asked, T);
    expect(plan.record.leaseExpiresAt).toBe(T + granted * SECOND);
  });

  it("pushes expiresAt out when the lease would outlive the TTL", () => {
    const policy = policyWith({ ttlSeconds: 60 });
    const record = claim(policy);
    const plan = planHeartbeat(record, "lease-1", 3_600, T);
    expect(plan.record.expiresAt).toBe(T + 3_600 * SECOND);
    // the extended lease keeps the record alive and in progress past its original TTL
    const later = planBegin(plan.record, CALL, makeEnv(policy, NOW + 120 * SECOND));
    expect(later.decision.decision).toBe("in_progress");
  });

  it("pushes expiresAt out to the lease plus the policy's grace", () => {
    const record = { ...claim(policyWith({ ttlSeconds: 1 })), expiresAt: T + SECOND };
    expect(planHeartbeat(record, "lease-1", 2, T, 5).record.expiresAt).toBe(T + 7 * SECOND);
  });

  it("keeps other attempts out past the original lease end", () => {
    const record = claim();
    const beat = planHeartbeat(record, "lease-1", 120, T).record;
    expect(planBegin(record, CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY, NOW + 60 * SECOND)).decision.decision).toBe("execute");
    expect(planBegin(beat, CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY, NOW + 60 * SECOND)).decision.decision).toBe("in_progress");
  });

  it("chains versions through heartbeat and complete", () => {
    const record = claim();
    const beat = planHeartbeat(record, "lease-1", 30, T).record;
    const done = planComplete(beat, "lease-1", ok, DEFAULT_EFFECTIVE_POLICY, T + SECOND);
    expectCas(done, beat);
    expect(done.record.version).toBe(2);
  });

  it("revives an expired lease nobody took over, like a late complete", () => {
    const record = claim();
    const plan = planHeartbeat(record, "lease-1", 30, NOW + 60 * SECOND);
    expectCas(plan, record);
    expect(plan.record.leaseExpiresAt).toBe(NOW + 90 * SECOND);
  });

  it("a wrong token is lease_lost", () => {
    const record = claim();
    const plan = planHeartbeat(record, "lease-2", 30, T);
    expect(plan.op).toBe("lease_lost");
    expect(plan.record).toBe(record);
  });

  it.each([ok, permanent, transient])("a beat racing its own complete (%#) is 'already', not a lost lease", (outcome) => {
    const done = completed(claim(), outcome);
    const plan = planHeartbeat(done, "lease-1", 30, T + SECOND);
    expect(plan.op).toBe("already");
    expect(plan.record).toBe(done);
  });

  it.each([ok, permanent, transient])("a completed record (%#) answers lease_lost to another token", (outcome) => {
    const done = completed(claim(), outcome);
    expect(planHeartbeat(done, "lease-9", 30, T + SECOND).op).toBe("lease_lost");
  });
});
