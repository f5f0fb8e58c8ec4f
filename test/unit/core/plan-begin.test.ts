import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { type BeginPlan, planBegin } from "../../../lib/core/plan-begin";
import { DEFAULT_EFFECTIVE_POLICY, DEFAULT_POLICY, type EffectivePolicy } from "../../../lib/core/policy";
import type { PreparedCall } from "../../../lib/core/prepare-call";
import { type CallRecord, leaseIsLive } from "../../../lib/core/record";
import { expectCas, expectLeaseHandedOut, makeCall, makeEnv, makeRecord, NOW, policyWith, SECOND, succeededRecord } from "./fixtures";

const CALL = makeCall();
const OTHER_ARGS = makeCall({ args: { amount: 9900, currency: "EUR" } });
const ASYNC = policyWith({ effect: "async" });
const NO_CACHE = policyWith({ cacheFailures: false });
const REJECT = policyWith({ onArgsMismatch: "reject" });
const REFUSE = policyWith({ onDuplicate: "refuse" });
const READ = policyWith({ effect: "read" });
const ALWAYS = policyWith({ onDuplicate: "execute" });

const live = () => makeRecord(); // claimed 10 s ago, lease until NOW + 20 s, version 3
const expiredLease = (o: Partial<CallRecord> = {}) => makeRecord({ leaseExpiresAt: NOW - 1, ...o });
const released = () => makeRecord({ state: "released", leaseExpiresAt: null, error: '{"message":"503","retryable":true}', completedAt: NOW - SECOND });
const failed = () =>
  succeededRecord({ state: "failed", result: null, error: JSON.stringify({ message: "card declined", retryable: false }) });

interface Row {
  name: string;
  existing: CallRecord | null;
  policy?: EffectivePolicy;
  call?: PreparedCall;
  op: BeginPlan["op"];
  decision: BeginPlan["decision"]["decision"];
  /** Decision fields that must match exactly. */
  fields?: Record<string, unknown>;
  argsMismatch?: boolean;
  check?: (plan: BeginPlan, existing: CallRecord | null) => void;
}

const reclaimed = (attempt: number, recovered: boolean) => ({ callId: "orig-call", attempt, recovered, leaseToken: "lease-1" });
const replayOf = (r: CallRecord) => ({ callId: r.id, key: r.key, firstSeenAt: r.firstSeenAt, completedAt: r.completedAt, expiresAt: r.expiresAt, replays: r.replays + 1 });

const ROWS: Row[] = [
  // absent
  { name: "absent → insert, execute attempt 1", existing: null, op: "insert", decision: "execute", fields: { callId: "call-1", key: CALL.key, attempt: 1, recovered: false, leaseToken: "lease-1", retry: DEFAULT_POLICY.retry } },
  // live lease
  { name: "live lease → none, in_progress", existing: live(), op: "none", decision: "in_progress", argsMismatch: false, fields: { callId: "orig-call", retryAfterMs: 1000, retry: DEFAULT_POLICY.retry } },
  { name: "live lease ending in 5 ms → retryAfterMs 5", existing: makeRecord({ leaseExpiresAt: NOW + 5 }), op: "none", decision: "in_progress", fields: { retryAfterMs: 5 } },
  { name: "live lease, different args → in_progress flagged as mismatch", existing: live(), call: OTHER_ARGS, op: "none", decision: "in_progress", argsMismatch: true },
  { name: "live lease under refuse → still in_progress", existing: live(), policy: REFUSE, op: "none", decision: "in_progress" },
  { name: "live lease under async → in_progress", existing: live(), policy: ASYNC, op: "none", decision: "in_progress" },
  // expired lease
  { name: "expired lease → execute attempt+1, recovered", existing: expiredLease(), op: "update", decision: "execute", fields: reclaimed(2, true) },
  { name: "lease ending exactly now counts as expired", existing: expiredLease({ leaseExpiresAt: NOW }), op: "update", decision: "execute", fields: reclaimed(2, true) },
  { name: "expired lease on attempt 4 → attempt 5", existing: expiredLease({ attempt: 4 }), op: "update", decision: "execute", fields: reclaimed(5, true) },
  { name: "expired lease, async → verify attempt+1", existing: expiredLease(), policy: ASYNC, op: "update", decision: "verify", fields: { callId: "orig-call", attempt: 2, leaseToken: "lease-1" } },
  // released
  { name: "released → execute attempt+1, not recovered", existing: released(), op: "update", decision: "execute", fields: reclaimed(2, false) },
  { name: "released, async → execute (not verify)", existing: released(), policy: ASYNC, op: "update", decision: "execute", fields: reclaimed(2, false) },
  { name: "released under refuse → execute", existing: released(), policy: REFUSE, op: "update", decision: "execute", fields: reclaimed(2, false) },
  // succeeded
  { name: "succeeded → replay with result, replays+1", existing: succeededRecord(), op: "replay", decision: "replay", fields: { ...replayOf(succeededRecord()), status: "succeeded", result: { chargeId: "ch_1" }, argsMismatch: false } },
  { name: "succeeded with no result → replay result null", existing: succeededRecord({ result: null }), op: "replay", decision: "replay", fields: { status: "succeeded", result: null } },
  { name: "succeeded, different args → replay flagged argsMismatch", existing: succeededRecord(), call: OTHER_ARGS, op: "replay", decision: "replay", fields: { result: { chargeId: "ch_1" }, argsMismatch: true } },
  // failed
  { name: "failed permanent, cacheFailures → replay with error", existing: failed(), op: "replay", decision: "replay", fields: { ...replayOf(failed()), status: "failed", error: { message: "card declined", retryable: false }, argsMismatch: false } },
  { name: "failed, cacheFailures false → execute again", existing: failed(), policy: NO_CACHE, op: "update", decision: "execute", fields: reclaimed(2, false) },
  // onArgsMismatch reject
  { name: "reject + different args on succeeded → conflict", existing: succeededRecord(), policy: REJECT, call: OTHER_ARGS, op: "none", decision: "conflict", argsMismatch: true, fields: { callId: "orig-call", key: CALL.key } },
  { name: "reject + different args on live lease → conflict", existing: live(), policy: REJECT, call: OTHER_ARGS, op: "none", decision: "conflict" },
  { name: "reject + same args → replay", existing: succeededRecord(), policy: REJECT, op: "replay", decision: "replay", fields: { argsMismatch: false } },
  // onDuplicate refuse
  { name: "refuse on succeeded → refused", existing: succeededRecord(), policy: REFUSE, op: "none", decision: "refused", fields: { callId: "orig-call", key: CALL.key, original: { status: "succeeded", completedAt: NOW - 5 * SECOND } } },
  { name: "refuse on failed → refused (failed)", existing: failed(), policy: REFUSE, op: "none", decision: "refused", fields: { original: { status: "failed", completedAt: NOW - 5 * SECOND } } },
  // never deduped
  { name: "effect read, absent → insert with suffixed key", existing: null, policy: READ, op: "insert", decision: "execute", fields: { key: `${CALL.key}:call-1`, attempt: 1 } },
  { name: "effect read over a succeeded record → insert anyway", existing: succeededRecord(), policy: READ, op: "insert", decision: "execute", fields: { key: `${CALL.key}:call-1`, attempt: 1, recovered: false } },
  { name: "onDuplicate execute over a live lease → insert anyway", existing: live(), policy: ALWAYS, op: "insert", decision: "execute", fields: { key: `${CALL.key}:call-1`, callId: "call-1" } },
  // TTL expired
  ...(["succeeded", "failed", "released", "in_progress"] as const).map(
    (state): Row => ({
      name: `TTL-expired ${state} record → fresh claim over the old version`,
      existing: makeRecord({ state, expiresAt: NOW, leaseExpiresAt: state === "in_progress" ? NOW - SECOND : null, attempt: 3, replays: 5 }),
      op: "update",
      decision: "execute",
      fields: { attempt: 1, recovered: false, key: CALL.key },
      check: (plan) => expect(plan.record).toMatchObject({ replays: 0, firstSeenAt: NOW, attempt: 1, argsFingerprint: CALL.argsFingerprint }),
    }),
  ),
  { name: "TTL-expired record with different args under reject → fresh claim, no conflict", existing: succeededRecord({ expiresAt: NOW - 1 }), policy: REJECT, call: OTHER_ARGS, op: "update", decision: "execute", fields: { attempt: 1 } },
];

describe("planBegin — state machine", () => {
  it.each(ROWS.map((r) => [r.name, r] as const))("%s", (_name, row) => {
    const env = makeEnv(row.policy);
    const call = row.call ?? CALL;
    const plan = planBegin(row.existing, call, env);

    expect(plan.op).toBe(row.op);
    expect(plan.decision.decision).toBe(row.decision);
    if (row.fields) expect(plan.decision).toMatchObject(row.fields);
    if (row.argsMismatch !== undefined) expect(plan).toMatchObject({ argsMismatch: row.argsMismatch });

    if (plan.op === "update") {
      expectCas(plan, row.existing!);
      const reclaim = !(row.existing!.expiresAt <= NOW);
      // a reclaim keeps the row's identity and history; a TTL-expired claim starts over
      expect(plan.record.key).toBe(row.existing!.key);
      if (reclaim) expect(plan.record).toMatchObject({ id: row.existing!.id, firstSeenAt: row.existing!.firstSeenAt, replays: row.existing!.replays });
    }
    if (plan.op === "insert") {
      expect(plan.record.version).toBe(0);
      expect(plan.record).toMatchObject({ attempt: 1, replays: 0, firstSeenAt: NOW, projectId: call.projectId, runId: call.runId, tool: call.tool });
    }
    if (plan.op === "none" || plan.op === "replay") expect(plan.record).toBe(row.existing);
    if (plan.decision.decision === "execute" || plan.decision.decision === "verify") {
      expectLeaseHandedOut(plan, env);
      expect(plan.record).toMatchObject({ argsFingerprint: call.argsFingerprint, args: call.argsText, stepId: call.stepId });
    }
    if (plan.decision.decision === "replay" && plan.decision.status === "succeeded") expect(plan.decision).not.toHaveProperty("error");
    if (plan.decision.decision === "replay" && plan.decision.status === "failed") expect(plan.decision).not.toHaveProperty("result");
    row.check?.(plan, row.existing);
  });
});

describe("planBegin — details", () => {
  it("a new claim takes lease, TTL and policy version from the policy", () => {
    const env = makeEnv(policyWith({ leaseSeconds: 120, ttlSeconds: 60 }, 42));
    const { record } = planBegin(null, CALL, env);
    expect(record).toMatchObject({ leaseExpiresAt: NOW + 120 * SECOND, policyVersion: 42, state: "in_progress" });
    expect(record.expiresAt).toBe(NOW + 120 * SECOND); // never before the lease ends
    const { record: normal } = planBegin(null, CALL, makeEnv());
    expect(normal.expiresAt).toBe(NOW + 86_400 * SECOND);
    expect(normal).toMatchObject({ strategy: "step", stepId: CALL.stepId, args: CALL.argsText, toolCallId: CALL.toolCallId });
  });

  it("never-deduped tools get a unique key on every begin", () => {
    for (const policy of [READ, ALWAYS]) {
      const env = makeEnv(policy);
      const a = planBegin(null, CALL, env);
      const b = planBegin(a.record, CALL, env);
      expect(a.record.key).not.toBe(b.record.key);
      expect(a.record.id).not.toBe(b.record.id);
      expect([a.record.key, b.record.key].every((k) => k.startsWith(`${CALL.key}:`))).toBe(true);
    }
  });

  it("retryAfterMs is capped by the policy's initial retry delay", () => {
    const env = makeEnv(policyWith({ retry: { ...DEFAULT_POLICY.retry, initialDelayMs: 250 } }));
    const plan = planBegin(live(), CALL, env);
    expect(plan.decision).toMatchObject({ decision: "in_progress", retryAfterMs: 250 });
  });
});

describe("planBegin — invariants over arbitrary records", () => {
  const states = ["in_progress", "succeeded", "failed", "released"] as const;
  const scenario = fc.record({
    state: fc.constantFrom(...states),
    leaseOffset: fc.integer({ min: -60_000, max: 60_000 }),
    ttlOffset: fc.integer({ min: -5_000, max: 100_000 }),
    version: fc.nat(1_000),
    attempt: fc.integer({ min: 1, max: 9 }),
    sameArgs: fc.boolean(),
    effect: fc.constantFrom("read", "write", "async"),
    onDuplicate: fc.constantFrom("replay", "refuse", "execute"),
    onArgsMismatch: fc.constantFrom("replay", "reject"),
    cacheFailures: fc.boolean(),
  } as const);

  it("never hands out a second lease on a live one, and always compare-and-sets", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const completed = s.state === "succeeded" || s.state === "failed";
        const existing = makeRecord({
          state: s.state,
          leaseExpiresAt: s.state === "in_progress" ? NOW + s.leaseOffset : null,
          expiresAt: NOW + s.ttlOffset,
          version: s.version,
          attempt: s.attempt,
          completedAt: completed || s.state === "released" ? NOW - SECOND : null,
        });
        const policy = policyWith({ effect: s.effect, onDuplicate: s.onDuplicate, onArgsMismatch: s.onArgsMismatch, cacheFailures: s.cacheFailures });
        const env = makeEnv(policy);
        const plan = planBegin(existing, s.sameArgs ? CALL : OTHER_ARGS, env);
        const d = plan.decision.decision;
        const never = s.effect === "read" || s.onDuplicate === "execute";
        const ttlExpired = existing.expiresAt <= NOW;

        if (plan.op === "insert") {
          expect(never).toBe(true);
          expect(plan.record.key).not.toBe(existing.key);
        }
        if (plan.op === "update") expectCas(plan, existing);
        if (plan.op === "none" || plan.op === "replay") expect(plan.record).toBe(existing);
        if (d === "execute" || d === "verify") {
          expectLeaseHandedOut(plan, env);
          if (!never && !ttlExpired) {
            expect(leaseIsLive(existing, NOW)).toBe(false);
            expect(plan.record.attempt).toBe(existing.attempt + 1);
          } else expect(plan.record.attempt).toBe(1);
        }
        if (d === "verify") expect(s.effect === "async" && s.state === "in_progress").toBe(true);
        if (d === "in_progress") expect(leaseIsLive(existing, NOW)).toBe(true);
        if (d === "replay" || d === "refused") expect(completed && !ttlExpired).toBe(true);
        if (d === "conflict") expect(s.onArgsMismatch === "reject" && !s.sameArgs).toBe(true);
        if (!never && !ttlExpired && leaseIsLive(existing, NOW)) expect(["in_progress", "conflict"]).toContain(d);
      }),
      { numRuns: 500 },
    );
  });
});

describe("planBegin — liveness grace (a late holder is not a dead one)", () => {
  const GRACE = policyWith({ leaseGraceSeconds: 5 });
  const lapsedBy = (ms: number) => makeRecord({ leaseExpiresAt: NOW - ms });

  it("a lease lapsed less than the grace ago is still the holder's: in_progress, retry after the grace ends", () => {
    const plan = planBegin(lapsedBy(4 * SECOND), CALL, makeEnv(GRACE));
    expect(plan.op).toBe("none");
    expect(plan.decision).toMatchObject({ decision: "in_progress", retryAfterMs: 1_000 });
    const late = planBegin(lapsedBy(4_999), CALL, makeEnv(GRACE));
    expect(late.decision).toMatchObject({ decision: "in_progress", retryAfterMs: 1 });
  });

  it("silent for the lease plus the grace, the holder is dead: taken over (write) or verify (async)", () => {
    expect(planBegin(lapsedBy(5 * SECOND), CALL, makeEnv(GRACE)).decision).toMatchObject({ decision: "execute", recovered: true, attempt: 2 });
    expect(planBegin(lapsedBy(6 * SECOND), CALL, makeEnv(policyWith({ effect: "async", leaseGraceSeconds: 5 }))).decision).toMatchObject({ decision: "verify" });
  });

  it("a record outlives its lease by the grace, whatever its TTL: a late holder's key is never treated as absent or purged", () => {
    const plan = planBegin(null, CALL, makeEnv(policyWith({ ttlSeconds: 1, leaseSeconds: 1, leaseGraceSeconds: 5 })));
    expect(plan.record.expiresAt).toBe(NOW + 6 * SECOND);
    const lapsed = { ...plan.record, leaseExpiresAt: NOW - 4 * SECOND, expiresAt: NOW + SECOND };
    expect(planBegin(lapsed, CALL, makeEnv(policyWith({ ttlSeconds: 1, leaseSeconds: 1, leaseGraceSeconds: 5 }))).decision).toMatchObject({ decision: "in_progress" });
  });

  it("the default policy gives a late holder 5 s: a begin within it waits, one after it takes over", () => {
    expect(DEFAULT_POLICY.leaseGraceSeconds).toBe(5);
    expect(planBegin(lapsedBy(1), CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY)).decision.decision).toBe("in_progress");
    expect(planBegin(lapsedBy(5 * SECOND), CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY)).decision.decision).toBe("execute");
  });
});
