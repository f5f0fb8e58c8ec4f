import { describe, expect, it } from "vitest";
import { planBegin } from "../../../lib/core/plan-begin";
import { type CompleteOutcome, planComplete } from "../../../lib/core/plan-complete";
import { DEFAULT_EFFECTIVE_POLICY } from "../../../lib/core/policy";
import type { CallRecord } from "../../../lib/core/record";
import { makeCall, makeEnv, NOW, policyWith, SECOND } from "./fixtures";

const CALL = makeCall();
const T = NOW + 5 * SECOND;
const HOUR = 3_600 * SECOND;
const accept: CompleteOutcome = { outcome: "accepted", operationId: "op_1", statusUrl: "https://jobs.example/op_1" };

function claim(): CallRecord {
  return planBegin(null, CALL, makeEnv()).record;
}

function acceptedRecord(policy = DEFAULT_EFFECTIVE_POLICY): CallRecord {
  const record = claim();
  const plan = planComplete(record, record.leaseToken, accept, policy, T);
  if (plan.op !== "update") throw new Error(`expected update, got ${plan.op}`);
  return plan.record;
}

describe("async operations: accepted, not done", () => {
  it("an accepted complete keeps the operation and its own TTL, not the outcome TTL", () => {
    const record = acceptedRecord(policyWith({ ttlSeconds: 60, acceptedTtlSeconds: 2 * 3_600 }));
    expect(record).toMatchObject({ state: "accepted", leaseExpiresAt: null, completedAt: T, error: null, expiresAt: T + 2 * HOUR });
    expect(JSON.parse(record.result!)).toEqual({ operationId: "op_1", statusUrl: "https://jobs.example/op_1" });
  });

  it("begins on an accepted record replay the operation id, whatever onDuplicate says", () => {
    for (const policy of [DEFAULT_EFFECTIVE_POLICY, policyWith({ onDuplicate: "refuse" }), policyWith({ effect: "async" })]) {
      const record = acceptedRecord();
      const plan = planBegin(record, CALL, makeEnv(policy, T + SECOND));
      expect(plan.op).toBe("replay");
      expect(plan.decision).toMatchObject({ decision: "replay", status: "accepted", operationId: "op_1", statusUrl: "https://jobs.example/op_1" });
      expect(plan.decision).not.toHaveProperty("result");
    }
  });

  it("past the accepted TTL the key behaves as absent", () => {
    const record = acceptedRecord(policyWith({ acceptedTtlSeconds: 10 }));
    expect(planBegin(record, CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY, T + 11 * SECOND)).decision.decision).toBe("execute");
  });

  it("the operation id alone finishes it (no lease); the outcome gets the normal TTL", () => {
    const record = acceptedRecord();
    const plan = planComplete(record, null, { outcome: "succeeded", result: { rows: 3 }, operationId: "op_1" }, DEFAULT_EFFECTIVE_POLICY, T + HOUR);
    expect(plan.op).toBe("update");
    if (plan.op !== "update") return;
    expect(plan.record).toMatchObject({ state: "succeeded", result: '{"rows":3}', completedAt: T + HOUR, expiresAt: T + HOUR + 86_400 * SECOND });
    expect(planBegin(plan.record, CALL, makeEnv(DEFAULT_EFFECTIVE_POLICY, T + HOUR)).decision).toMatchObject({ status: "succeeded", result: { rows: 3 } });
  });

  it("the lease that accepted it may finish it too; a permanent failure is cached", () => {
    const record = acceptedRecord();
    const plan = planComplete(record, record.leaseToken, { outcome: "failed", error: { message: "job crashed", retryable: false } }, DEFAULT_EFFECTIVE_POLICY, T);
    expect(plan.op === "update" && plan.record.state).toBe("failed");
  });

  it("another operation id, or neither credential, is refused", () => {
    const record = acceptedRecord();
    expect(planComplete(record, null, { outcome: "succeeded", operationId: "op_2" }, DEFAULT_EFFECTIVE_POLICY, T).op).toBe("operation_mismatch");
    expect(planComplete(record, "someone-else", { outcome: "succeeded" }, DEFAULT_EFFECTIVE_POLICY, T).op).toBe("lease_lost");
    expect(planComplete(claim(), null, { outcome: "succeeded", operationId: "op_1" }, DEFAULT_EFFECTIVE_POLICY, T).op).toBe("operation_mismatch");
  });

  it("a retried accepted complete is answered as before; a different operation is refused", () => {
    const record = acceptedRecord();
    expect(planComplete(record, record.leaseToken, accept, DEFAULT_EFFECTIVE_POLICY, T).op).toBe("already");
    expect(planComplete(record, record.leaseToken, { ...accept, operationId: "op_9" }, DEFAULT_EFFECTIVE_POLICY, T).op).toBe("operation_mismatch");
  });
});
