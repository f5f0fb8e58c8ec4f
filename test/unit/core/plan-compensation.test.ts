import { describe, expect, it } from "vitest";
import { type StepStatus, compensationKey, isStepDone, mayBeginCompensation, planCompensation, stepActions } from "../../../lib/core/plan-compensation";
import type { CallRecord } from "../../../lib/core/record";
import { NOW, SECOND, succeededRecord } from "./fixtures";

const STEP_STATUS_LIST: StepStatus[] = ["pending", "running", "compensated", "failed", "resolved"];

const step = (id: string, completedAt: number, tool: string): CallRecord =>
  succeededRecord({ id, key: `k_${id}`, completedAt, compensation: JSON.stringify({ tool, args: { of: id } }) });
const undo = (of: CallRecord, state: CallRecord["state"], extra: Partial<CallRecord> = {}): CallRecord =>
  succeededRecord({ id: `u_${of.id}`, key: compensationKey(of.key), state, compensation: null, ...extra });

const reserve = step("reserve", NOW - 3 * SECOND, "release");
const charge = step("charge", NOW - 2 * SECOND, "refund");
const plain = succeededRecord({ id: "plain", key: "k_plain", completedAt: NOW - SECOND, compensation: null });

describe("planCompensation", () => {
  it("a running run has steps but nothing to do", () => {
    const plan = planCompensation(false, [reserve, charge, plain]);
    expect(plan).toMatchObject({ state: "running", next: null });
    expect(plan.steps.map((s) => s.callId)).toEqual(["charge", "reserve"]);
  });

  it("aborted: reverse completion order, the newest first", () => {
    const plan = planCompensation(true, [reserve, charge, plain]);
    expect(plan.state).toBe("compensating");
    expect(plan.next?.callId).toBe("charge");
    expect(plan.steps.map((s) => [s.compensation.tool, s.status])).toEqual([["refund", "pending"], ["release", "pending"]]);
  });

  it("moves on as undos succeed, and is compensated when all have", () => {
    expect(planCompensation(true, [reserve, charge, undo(charge, "succeeded")]).next?.callId).toBe("reserve");
    const done = planCompensation(true, [reserve, charge, undo(charge, "succeeded"), undo(reserve, "succeeded")]);
    expect(done).toMatchObject({ state: "compensated", next: null });
  });

  it("a permanent undo failure stops the plan; resolved by hand counts as done", () => {
    const failed = undo(charge, "failed", { result: null, error: JSON.stringify({ message: "disputed", retryable: false }) });
    const stopped = planCompensation(true, [reserve, charge, failed]);
    expect(stopped).toMatchObject({ state: "compensation_failed", next: null });
    expect(stopped.steps[0]).toMatchObject({ status: "failed", error: { message: "disputed" } });
    const resolved = undo(charge, "succeeded", { result: JSON.stringify({ resolvedByHand: { by: "ops@x", note: "refunded in the PSP console" } }) });
    const goesOn = planCompensation(true, [reserve, charge, resolved]);
    expect(goesOn.steps[0]!.status).toBe("resolved");
    expect(goesOn.next?.callId).toBe("reserve");
  });

  it("a released undo is pending again; a live one is running", () => {
    expect(planCompensation(true, [charge, undo(charge, "released")]).steps[0]!.status).toBe("pending");
    expect(planCompensation(true, [charge, undo(charge, "in_progress")]).steps[0]!.status).toBe("running");
  });

  it("only the next step may begin, unless it already began; nothing before the abort", () => {
    expect(mayBeginCompensation(planCompensation(false, [reserve, charge]), "charge").ok).toBe(false);
    const plan = planCompensation(true, [reserve, charge]);
    expect(mayBeginCompensation(plan, "charge").ok).toBe(true);
    expect(mayBeginCompensation(plan, "reserve").ok).toBe(false);
    expect(mayBeginCompensation(plan, "plain").ok).toBe(false);
    expect(mayBeginCompensation(planCompensation(true, [reserve, charge, undo(charge, "in_progress")]), "charge").ok).toBe(true);
  });

  it("every step not done has an operator's action: failed → retry or resolve; pending, running → resolve; done → none", () => {
    for (const status of STEP_STATUS_LIST) {
      const actions = stepActions({ status });
      expect(actions.length > 0, status).toBe(!isStepDone({ status }));
    }
    expect(stepActions({ status: "failed" })).toEqual(["retry", "resolve"]);
    expect(stepActions({ status: "pending" })).toEqual(["resolve"]);
    expect(stepActions({ status: "running" })).toEqual(["resolve"]);
    expect(stepActions({ status: "compensated" })).toEqual([]);
    expect(stepActions({ status: "resolved" })).toEqual([]);
  });
});
