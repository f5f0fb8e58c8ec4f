import { beforeAll, describe, expect, it } from "vitest";
import { RunCompensationSchema } from "../../lib/contract/sagas";
import { BeginResponseSchema } from "../../lib/contract/v1";
import { ToolError, createGate } from "../../lib/sdk";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * #37 §1: every plan has a way out. Whatever a runner read or was replayed before, an operator's
 * retry of a failed undo leads to exactly one more attempt; resolve is there for any step not done;
 * the retry is audited as a retry of that run's undo.
 */
describe.each(PROVIDERS)("%s: sagas — a way out of every plan", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own project.
  let server: SharedServerInfo;
  let projectId: string;
  let apiKey: string;
  let agent: TestClient;
  let operator: OperatorClient;

  beforeAll(async () => {
    server = await sharedServer(provider);
    ({ projectId, apiKey } = await createTestProject(server.databaseUrl));
    agent = new TestClient(server.baseUrl, apiKey);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    operator = await createOperator(root, projectId, "operator");
  });

  async function twoSteps(runId: string) {
    const gate = createGate({ baseUrl: server.baseUrl, apiKey, toolRetry: false });
    await gate.run({ runId }, async () => {
      await gate.call({ tool: "reserve_inventory", step: "reserve" }, () => ({ reservationId: "r1" }), { compensate: (r) => ({ tool: "release_inventory", args: r }) });
      await gate.call({ tool: "charge_card", step: "charge" }, () => ({ chargeId: "c1" }), { compensate: (r) => ({ tool: "refund_charge", args: r }) });
    });
    return gate;
  }

  const beginUndo = async (runId: string, callId: string) =>
    BeginResponseSchema.parse(await (await agent.raw("POST", `/api/v1/runs/${runId}/compensations/${callId}/begin`, {})).json());

  it("an undo fails, a second runner is replayed the failure, the operator retries: exactly one more attempt, then compensated; the retry is audited", async () => {
    const runId = uniqueRun("replayed-retry");
    const gate = await twoSteps(runId);
    let refundAttempts = 0;
    let refundWorks = false;
    const compensators = {
      refund_charge: () => {
        refundAttempts++;
        if (!refundWorks) throw new ToolError("PSP says no", { retryable: false });
        return { refunded: true };
      },
      release_inventory: () => ({ released: true }),
    };
    const stopped = await gate.abort(runId, "user cancelled", { compensators });
    expect(stopped.state).toBe("compensation_failed");
    const failed = stopped.plan.steps[0]!;
    expect(refundAttempts).toBe(1);

    // A second runner begins the failed step: the failure is replayed, nothing runs.
    const replayed = await beginUndo(runId, failed.callId);
    expect(replayed).toMatchObject({ decision: "replay", status: "failed" });

    const runPath = operator.p(projectId, `/runs/${runId}`);
    const retried = await operator.call(RunCompensationSchema, "POST", `${runPath}/compensations/${failed.callId}/retry`, { reason: "PSP fixed" });
    expect(retried).toMatchObject({ state: "compensating", nextCallId: failed.callId });
    const audit = (await operator.audit(projectId)).entries.find((e) => e.action === "compensation.retried");
    expect(audit?.detail).toMatchObject({ runId, callId: failed.callId, reason: "PSP fixed" });

    // The next begin of that undo is its one more attempt, whoever begins it.
    refundWorks = true;
    const finished = await gate.compensate(runId, { compensators });
    expect(finished).toMatchObject({ ok: true, state: "compensated" });
    expect(refundAttempts).toBe(2);
    expect(finished.plan.steps[0]).toMatchObject({ status: "compensated", attempts: 2 });
    // Retrying a step that is done is refused; nothing runs again.
    expect((await operator.expectError("POST", `${runPath}/compensations/${failed.callId}/retry`, { reason: "again" })).status).toBe(409);
    expect((await beginUndo(runId, failed.callId))).toMatchObject({ decision: "replay", status: "succeeded" });
    expect(refundAttempts).toBe(2);
  });

  it("a retry that fails again stops the plan again (not blocked): the operator can retry or resolve once more", async () => {
    const runId = uniqueRun("retry-fails");
    const gate = await twoSteps(runId);
    let refundAttempts = 0;
    const compensators = {
      refund_charge: () => {
        refundAttempts++;
        throw new ToolError("still disputed", { retryable: false });
      },
      release_inventory: () => ({ released: true }),
    };
    const stopped = await gate.abort(runId, "user cancelled", { compensators });
    const failed = stopped.plan.steps[0]!;
    await beginUndo(runId, failed.callId);
    const runPath = operator.p(projectId, `/runs/${runId}`);
    await operator.call(RunCompensationSchema, "POST", `${runPath}/compensations/${failed.callId}/retry`, { reason: "try once more" });
    const again = await gate.compensate(runId, { compensators });
    expect(again.state).toBe("compensation_failed");
    expect(refundAttempts).toBe(2);
    expect(again.plan.steps[0]).toMatchObject({ status: "failed", attempts: 2 });
    const resolved = await operator.call(RunCompensationSchema, "POST", `${runPath}/compensations/${failed.callId}/resolve`, { note: "refunded by hand" });
    expect(resolved).toMatchObject({ state: "compensating", nextCallId: stopped.plan.steps[1]!.callId });
    expect((await gate.compensate(runId, { compensators })).state).toBe("compensated");
    expect(refundAttempts).toBe(2);
  });

  it("resolve is there for any step not done: a pending step is resolved by hand and the plan goes on without running it", async () => {
    const runId = uniqueRun("resolve-pending");
    await twoSteps(runId);
    const runPath = operator.p(projectId, `/runs/${runId}`);
    const aborted = await operator.call(RunCompensationSchema, "POST", `${runPath}/abort`, { reason: "fraud suspected" });
    const [charge, reserve] = aborted.steps;
    expect(charge!.status).toBe("pending");
    // The second step, still pending behind the first: resolving it by hand is allowed too.
    const second = await operator.call(RunCompensationSchema, "POST", `${runPath}/compensations/${reserve!.callId}/resolve`, { note: "released in the WMS" });
    expect(second.steps[1]!.status).toBe("resolved");
    const first = await operator.call(RunCompensationSchema, "POST", `${runPath}/compensations/${charge!.callId}/resolve`, { note: "refunded by hand" });
    expect(first).toMatchObject({ state: "compensated", nextCallId: null });
    expect(first.steps.map((s) => s.status)).toEqual(["resolved", "resolved"]);
    // Done steps are not resolved twice.
    expect((await operator.expectError("POST", `${runPath}/compensations/${charge!.callId}/resolve`, { note: "again" })).status).toBe(409);
  });
});
