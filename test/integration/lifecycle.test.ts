import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest, BeginResponse } from "../../lib/contract/v1";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { type TestProject, createTestProject, eventsForCall, hasBegins } from "../helpers/fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

type Decision<K extends BeginResponse["decision"]> = Extract<BeginResponse, { decision: K }>;

/** Asserts the decision and narrows it, so a wrong decision fails with the whole answer shown. */
function expectDecision<K extends BeginResponse["decision"]>(answer: BeginResponse, decision: K): Decision<K> {
  expect(answer, JSON.stringify(answer)).toMatchObject({ decision });
  return answer as Decision<K>;
}

const uniqueRun = (label: string) => `run_${label}_${randomBytes(4).toString("hex")}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (iso: string) => Date.parse(iso);

describe.each(PROVIDERS)("%s: call lifecycle over HTTP", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let projectA: TestProject;
  let client: TestClient;
  let clientB: TestClient;

  beforeAll(async () => {
    server = await sharedServer(provider);
    projectA = await createTestProject(server.databaseUrl, "project A");
    const projectB = await createTestProject(server.databaseUrl, "project B");
    client = new TestClient(server.baseUrl, projectA.apiKey);
    clientB = new TestClient(server.baseUrl, projectB.apiKey);
  });

  it("an expired lease is recovered by the next begin; the late complete of the first attempt gets 409 lease_lost", async () => {
    const request: BeginRequest = { tool: "charge_card", runId: uniqueRun("lease"), stepId: "charge", args: { amount: 42 } };
    const first = expectDecision(await client.begin(request), "execute");
    expect(first).toMatchObject({ attempt: 1, recovered: false });

    const shortened = await client.heartbeat(first.callId, first.leaseToken, 1);
    expect(ms(shortened.leaseExpiresAt!)).toBeLessThanOrEqual(Date.now() + 1_500);
    await sleep(1_200);

    const second = expectDecision(await client.begin(request), "execute");
    expect(second).toMatchObject({ callId: first.callId, key: first.key, attempt: 2, recovered: true });
    expect(second.leaseToken).not.toBe(first.leaseToken);

    const late = await client.expectError("POST", `/api/v1/calls/${first.callId}/complete`, {
      leaseToken: first.leaseToken,
      outcome: "succeeded",
      result: { chargeId: "ch_late" },
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: "lease_lost", retryable: false });

    const events = await eventsForCall(server.databaseUrl, projectA.projectId, first.callId);
    expect(events.filter((e) => e.type === "lease_lost")).toHaveLength(1);

    const done = await client.complete(second.callId, { leaseToken: second.leaseToken, outcome: "succeeded", result: { chargeId: "ch_2" } });
    expect(done).toMatchObject({ status: "succeeded", attempt: 2, result: { chargeId: "ch_2" } });

    const again = expectDecision(await client.begin(request), "replay");
    expect(again).toMatchObject({ callId: first.callId, status: "succeeded", result: { chargeId: "ch_2" }, replays: 1 });
  });

  it("a retryable failure releases the key: the next begin executes attempt 2, not recovered", async () => {
    const request: BeginRequest = { tool: "send_email", runId: uniqueRun("retryable"), stepId: "notify", args: { to: "a@b.c" } };
    const first = expectDecision(await client.begin(request), "execute");
    const failed = await client.complete(first.callId, {
      leaseToken: first.leaseToken,
      outcome: "failed",
      error: { message: "SMTP timeout", retryable: true },
    });
    expect(failed.status).toBe("released");

    const second = expectDecision(await client.begin(request), "execute");
    expect(second).toMatchObject({ callId: first.callId, key: first.key, attempt: 2, recovered: false });
  });

  it("a permanent failure is cached: the next begin replays status failed with the same error", async () => {
    const request: BeginRequest = { tool: "send_email", runId: uniqueRun("permanent"), stepId: "notify", args: { to: "x@y.z" } };
    const first = expectDecision(await client.begin(request), "execute");
    const error = { message: "mailbox does not exist", retryable: false };
    const failed = await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error });
    expect(failed).toMatchObject({ status: "failed", error });

    const replay = expectDecision(await client.begin(request), "replay");
    expect(replay).toMatchObject({ callId: first.callId, status: "failed", error, replays: 1, argsMismatch: false });
    expect(replay.result).toBeUndefined();
  });

  it("a success replays with result, firstSeenAt, completedAt, counted replays and a 24 h expiry", async () => {
    const request: BeginRequest = { tool: "create_invoice", runId: uniqueRun("success"), stepId: "invoice", args: { total: 10 } };
    const first = expectDecision(await client.begin(request), "execute");
    const result = { invoiceId: "inv_1", lines: [1, 2, 3] };
    const done = await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result });

    const r1 = expectDecision(await client.begin(request), "replay");
    // A paraphrase, not a third identical call: that would be a loop, which the default policy blocks.
    const r2 = expectDecision(await client.begin({ ...request, args: { total: "10.00" } }), "replay");
    expect(r1).toMatchObject({ callId: first.callId, key: first.key, status: "succeeded", result, replays: 1, argsMismatch: false });
    expect(r2).toMatchObject({ callId: first.callId, status: "succeeded", result, replays: 2 });
    expect(r1.firstSeenAt).toBe(done.firstSeenAt);
    expect(r1.completedAt).toBe(done.completedAt);
    expect(ms(r1.completedAt)).toBeGreaterThanOrEqual(ms(r1.firstSeenAt));
    expect(Math.abs(ms(r1.expiresAt) - (ms(r1.completedAt) + 86_400_000))).toBeLessThan(2_000);
    expect(r2.expiresAt).toBe(r1.expiresAt);

    expect((await client.status(first.callId)).replays).toBe(2);
  });

  it("paraphrase: same runId + stepId with different args is the same key and replays with argsMismatch", async () => {
    const runId = uniqueRun("paraphrase");
    const base: BeginRequest = { tool: "charge_card", runId, stepId: "charge", args: { amount: 42, currency: "EUR" } };
    const first = expectDecision(await client.begin(base), "execute");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result: { ok: true } });

    const paraphrased = expectDecision(await client.begin({ ...base, args: { amount: "42.00", note: "retry" } }), "replay");
    expect(paraphrased).toMatchObject({ callId: first.callId, key: first.key, argsMismatch: true, result: { ok: true } });

    const events = await eventsForCall(server.databaseUrl, projectA.projectId, first.callId, { until: hasBegins("replay") });
    const replayEvents = events.filter((e) => e.type === "begin" && e.decision === "replay");
    expect(replayEvents).toHaveLength(1);
    expect(replayEvents[0]!.argsMismatch).toBe(true);
    expect(events.find((e) => e.type === "begin" && e.decision === "execute")!.argsMismatch).toBe(false);

    const otherStep = expectDecision(await client.begin({ ...base, stepId: "refund" }), "execute");
    expect(otherStep.key).not.toBe(first.key);
    expect(otherStep.callId).not.toBe(first.callId);

    const otherRun = expectDecision(await client.begin({ ...base, runId: uniqueRun("paraphrase_other") }), "execute");
    expect(otherRun.key).not.toBe(first.key);
    expect(otherRun.key).not.toBe(otherStep.key);
  });

  it("paraphrase: same runId + scope (no stepId) with different args is the same key and replays with argsMismatch", async () => {
    const base: BeginRequest = { tool: "send_email", runId: uniqueRun("scope"), scope: "order:123", args: { subject: "Your order" } };
    const first = expectDecision(await client.begin(base), "execute");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result: { messageId: "m1" } });

    const paraphrased = expectDecision(await client.begin({ ...base, args: { subject: "Re: your order!" } }), "replay");
    expect(paraphrased).toMatchObject({ callId: first.callId, key: first.key, argsMismatch: true, result: { messageId: "m1" } });
    const events = await eventsForCall(server.databaseUrl, projectA.projectId, first.callId, { until: hasBegins("replay") });
    expect(events.filter((e) => e.type === "begin" && e.decision === "replay").map((e) => e.argsMismatch)).toEqual([true]);

    const otherScope = expectDecision(await client.begin({ ...base, scope: "order:124" }), "execute");
    expect(otherScope.key).not.toBe(first.key);
    const otherRun = expectDecision(await client.begin({ ...base, runId: uniqueRun("scope_other") }), "execute");
    expect(otherRun.key).not.toBe(first.key);
  });

  it("heartbeat extends the lease; GET shows the status; a retried complete is idempotent and not recorded twice", async () => {
    const request: BeginRequest = { tool: "render_video", runId: uniqueRun("status"), stepId: "render", args: { id: 7 } };
    const first = expectDecision(await client.begin(request), "execute");

    const running = await client.status(first.callId);
    expect(running).toMatchObject({
      callId: first.callId,
      key: first.key,
      tool: "render_video",
      runId: request.runId,
      stepId: "render",
      status: "in_progress",
      attempt: 1,
      completedAt: null,
      leaseExpiresAt: first.leaseExpiresAt,
    });
    expect(running.result).toBeUndefined();

    const beat = await client.heartbeat(first.callId, first.leaseToken, 600);
    expect(beat.callId).toBe(first.callId);
    expect(ms(beat.leaseExpiresAt!)).toBeGreaterThan(ms(first.leaseExpiresAt));
    expect(ms(beat.leaseExpiresAt!)).toBeGreaterThan(Date.now() + 500_000);
    expect((await client.status(first.callId)).leaseExpiresAt).toBe(beat.leaseExpiresAt);

    const completion = { leaseToken: first.leaseToken, outcome: "succeeded" as const, result: { url: "https://cdn/v.mp4" } };
    const done = await client.complete(first.callId, completion);
    expect(done).toMatchObject({ status: "succeeded", result: completion.result, leaseExpiresAt: null });
    expect(done.completedAt).not.toBeNull();
    expect(await client.status(first.callId)).toEqual(done);

    const retried = await client.raw("POST", `/api/v1/calls/${first.callId}/complete`, completion);
    expect(retried.status).toBe(200);
    expect(await retried.json()).toEqual(done);

    // A beat that raced its own complete is told to stop, and is not flagged as a lost lease.
    const lateBeat = await client.heartbeat(first.callId, first.leaseToken, 60);
    expect(lateBeat).toEqual({ callId: first.callId, status: "succeeded", leaseExpiresAt: null });

    const events = await eventsForCall(server.databaseUrl, projectA.projectId, first.callId);
    expect(events.filter((e) => e.type === "complete")).toHaveLength(1);
    expect(events.filter((e) => e.type === "heartbeat")).toHaveLength(1);
    expect(events.filter((e) => e.type === "lease_lost")).toHaveLength(0);
  });

  it("read-your-own-project: another project's key gets 404 for the call on GET, complete and heartbeat", async () => {
    const request: BeginRequest = { tool: "charge_card", runId: uniqueRun("isolation"), stepId: "charge", args: { amount: 1 } };
    const first = expectDecision(await client.begin(request), "execute");
    const path = `/api/v1/calls/${first.callId}`;

    const cases = [
      await clientB.expectError("GET", path),
      await clientB.expectError("POST", `${path}/complete`, { leaseToken: first.leaseToken, outcome: "succeeded", result: 1 }),
      await clientB.expectError("POST", `${path}/heartbeat`, { leaseToken: first.leaseToken, extendSeconds: 60 }),
    ];
    for (const answer of cases) {
      expect(answer.status).toBe(404);
      expect(answer.body.error).toMatchObject({ code: "not_found", retryable: false });
    }

    // Project B's attempts changed nothing, and project B's own begin for the same structure is its own key.
    expect(await client.status(first.callId)).toMatchObject({ status: "in_progress", attempt: 1, leaseExpiresAt: first.leaseExpiresAt });
    const inB = expectDecision(await clientB.begin(request), "execute");
    expect(inB.key).not.toBe(first.key);
    expect(inB.callId).not.toBe(first.callId);
  });
});
