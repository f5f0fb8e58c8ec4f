import { beforeAll, describe, expect, it } from "vitest";
import { RunListSchema } from "../../lib/contract/calls";
import { OperatorQueueSchema } from "../../lib/contract/operator-queue";
import { RunCompensationSchema } from "../../lib/contract/sagas";
import { ToolError, createGate } from "../../lib/sdk";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** The operators' side of sagas over real HTTP: a failed undo waits for them; they retry it, resolve it by hand, or abort a run. */
describe.each(PROVIDERS)("%s: sagas — operators", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let projectId: string;
  let apiKey: string;
  let operator: OperatorClient;
  let viewer: OperatorClient;

  beforeAll(async () => {
    server = await sharedServer(provider);
    ({ projectId, apiKey } = await createTestProject(server.databaseUrl));
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    operator = await createOperator(root, projectId, "operator");
    viewer = await createOperator(root, projectId, "viewer");
  });

  async function twoSteps(runId: string) {
    const gate = createGate({ baseUrl: server.baseUrl, apiKey, toolRetry: false });
    await gate.run({ runId }, async () => {
      await gate.call({ tool: "reserve_inventory", step: "reserve" }, () => ({ reservationId: "r1" }), { compensate: (r) => ({ tool: "release_inventory", args: r }) });
      await gate.call({ tool: "charge_card", step: "charge" }, () => ({ chargeId: "c1" }), { compensate: (r) => ({ tool: "refund_charge", args: r }) });
    });
    return gate;
  }

  it("a permanent undo failure waits for an operator; resolved by hand (audited), the plan goes on and the run ends compensated", async () => {
    const runId = uniqueRun("resolve");
    const gate = await twoSteps(runId);
    let releases = 0;
    const compensators = {
      refund_charge: () => {
        throw new ToolError("charge already disputed", { retryable: false });
      },
      release_inventory: () => ({ released: ++releases }),
    };
    const stopped = await gate.abort(runId, "user cancelled", { compensators });
    expect(stopped.state).toBe("compensation_failed");
    const failed = stopped.plan.steps[0]!;

    const runPath = operator.p(projectId, `/runs/${runId}`);
    const seen = await viewer.call(RunCompensationSchema, "GET", `${runPath}/compensation`);
    expect(seen.steps[0]).toMatchObject({ status: "failed", error: { message: "charge already disputed" } });
    // The operators' queue lists the run with the step, args and error that stopped it; so does the runs list's state.
    const queued = (await viewer.call(OperatorQueueSchema, "GET", operator.p(projectId, "/queue"))).runs.find((r) => r.runId === runId);
    expect(queued).toMatchObject({ state: "compensation_failed", abort: { reason: "user cancelled" } });
    expect(queued!.steps.find((s) => s.status === "failed")).toMatchObject({ compensation: { tool: "refund_charge", args: { chargeId: "c1" } }, error: { message: "charge already disputed" } });
    const listed = async () => (await viewer.call(RunListSchema, "GET", operator.p(projectId, `/runs?runId=${runId}`))).runs[0]?.sagaState;
    expect(await listed()).toBe("compensation_failed");
    const forbidden = await viewer.expectError("POST", `${runPath}/compensations/${failed.callId}/resolve`, { note: "x" });
    expect(forbidden.status).toBe(403);

    const resolved = await operator.call(RunCompensationSchema, "POST", `${runPath}/compensations/${failed.callId}/resolve`, { note: "refunded in the PSP console" });
    expect(resolved).toMatchObject({ state: "compensating", nextCallId: stopped.plan.steps[1]!.callId });
    expect(resolved.steps[0]!.status).toBe("resolved");
    const audit = (await operator.audit(projectId)).entries.find((e) => e.action === "compensation.resolved");
    expect(audit?.detail).toMatchObject({ runId, callId: failed.callId, note: "refunded in the PSP console" });

    const finished = await gate.compensate(runId, { compensators });
    expect(finished).toMatchObject({ ok: true, state: "compensated" });
    expect(releases).toBe(1);
    expect(await listed()).toBe("compensated");
    expect((await viewer.call(OperatorQueueSchema, "GET", operator.p(projectId, "/queue"))).runs.some((r) => r.runId === runId)).toBe(false);
  });

  it("retry lets a failed undo run again; an operator aborts a run (audited) and the agent's runner undoes it", async () => {
    const runId = uniqueRun("retry");
    const gate = await twoSteps(runId);
    let refunds = 0;
    let flaky = true;
    const compensators = {
      refund_charge: () => {
        if (flaky) throw new ToolError("PSP says no", { retryable: false });
        return { refunded: ++refunds };
      },
      release_inventory: () => ({ ok: true }),
    };
    const runPath = operator.p(projectId, `/runs/${runId}`);
    const aborted = await operator.call(RunCompensationSchema, "POST", `${runPath}/abort`, { reason: "fraud suspected" });
    expect(aborted).toMatchObject({ state: "compensating", abort: { reason: "fraud suspected", abortedBy: expect.stringMatching(/^operator:/) } });
    expect((await operator.audit(projectId)).entries.some((e) => e.action === "run.aborted" && e.target.id === runId)).toBe(true);

    expect((await gate.compensate(runId, { compensators })).state).toBe("compensation_failed");
    flaky = false;
    const failedCall = aborted.steps[0]!.callId;
    const retried = await operator.call(RunCompensationSchema, "POST", `${runPath}/compensations/${failedCall}/retry`, { reason: "PSP fixed" });
    expect(retried).toMatchObject({ state: "compensating", nextCallId: failedCall });
    expect((await gate.compensate(runId, { compensators })).state).toBe("compensated");
    expect(refunds).toBe(1);
    const notFailed = await operator.expectError("POST", `${runPath}/compensations/${failedCall}/retry`, { reason: "again" });
    expect(notFailed.status).toBe(409);
  });
});
