import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT, agentAsk, agentRead, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { CallStatusSchema } from "../../lib/contract/v1";

/** The metrics of a Server-Timing header: name → its `dur`. */
function serverTimings(res: Response): Map<string, number> {
  const metrics = new Map<string, number>();
  for (const metric of (res.headers.get("server-timing") ?? "").split(",")) {
    const [name, ...params] = metric.trim().split(";");
    const dur = params.map((p) => p.trim().split("=")).find(([key]) => key === "dur");
    if (name) metrics.set(name.trim(), dur ? Number(dur[1]) : Number.NaN);
  }
  return metrics;
}

/**
 * The replay cache across server processes (issue 42): two servers on one database. Server A
 * replays a completed call (so it holds the record in its cache); then an eviction, a resend
 * approved and run, or an expiry done through server B is seen by A's next begin: no stale replay.
 * Loops are off for these tools (each test begins the same call repeatedly), except in the run
 * state's cases (lib/store/hot/sqlite/run-state-cache.ts: A keeps its runs' loop history and abort
 * between begins): a run aborted, or a loop line written, through B is seen by A's next begin.
 */
describe.each(PROVIDERS)("%s: cached replays across two server processes", (provider) => {
  let db: TestDatabase;
  let servers: TestServer[];
  let onA: TestClient;
  let onB: TestClient;
  let operatorOnB: OperatorClient;
  let policies: AdminClient;
  let projectId: string;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url);
    projectId = project.projectId;
    const env = { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    // One after the other: both bootstrap the same admin on the database.
    const a = await startServer(db.url, env);
    const b = await startServer(db.url, env);
    servers = [a, b];
    onA = new TestClient(a.baseUrl, project.apiKey);
    onB = new TestClient(b.baseUrl, project.apiKey);
    policies = new AdminClient(a.baseUrl, projectId);
    const root = await OperatorClient.signIn(b.baseUrl, ROOT.email, ROOT.password);
    operatorOnB = await createOperator(root, projectId, "operator");
  });

  afterAll(async () => {
    await Promise.all(servers?.map((s) => s.stop()) ?? []);
    await db?.drop();
  });

  /** A tool with loops off (and `extra`), one call of it completed on A, then replayed twice on A. */
  async function replayedOnA(label: string, result: unknown, extra: Record<string, unknown> = {}) {
    const tool = uniqueTool(label);
    await policies.put(tool, { loop: { enabled: false }, ...extra });
    const request = { tool, runId: uniqueRun(label), stepId: "notify", args: { to: "a@example.com" } };
    const first = await runOnce(onA, request, result);
    expectDecision(await onA.begin(request), "replay");
    const again = await onA.raw("POST", "/api/v1/calls/begin", request);
    expect(await again.json()).toMatchObject({ decision: "replay", callId: first.callId, result, replays: 2 });
    // The store's share of the answer, beside the gate's: both numbers, the share within the whole.
    const timings = serverTimings(again);
    expect(Number.isFinite(timings.get("gate"))).toBe(true);
    expect(Number.isFinite(timings.get("store"))).toBe(true);
    expect(timings.get("store")).toBeGreaterThanOrEqual(0);
    expect(timings.get("store")).toBeLessThanOrEqual(timings.get("gate")!);
    return { request, first };
  }

  it("an eviction through B: A's next begin executes again", async () => {
    const { request, first } = await replayedOnA("evict", { sent: "wrong" });
    const evicted = await operatorOnB.call(CallStatusSchema, "POST", operatorOnB.p(projectId, `/calls/${first.callId}/evict`), { reason: "cached a bad result" });
    expect(evicted).toMatchObject({ status: "released" });
    expect(expectDecision(await onA.begin(request), "execute")).toMatchObject({ callId: first.callId, attempt: 2 });
  });

  it("a resend approved and run through B: A's next begin replays the new generation's outcome", async () => {
    const { request, first } = await replayedOnA("resend", { messageId: "m-1" });
    const asked = await agentAsk(onB, first.callId);
    await operatorOnB.approve(projectId, asked.requestId, "customer confirmed");
    const token = (await agentRead(onB, asked.requestId)).bypassToken!;
    const resent = expectDecision(await onB.begin({ ...request, bypassToken: token }), "execute");
    await onB.complete(resent.callId, { leaseToken: resent.leaseToken, outcome: "succeeded", result: { messageId: "m-2" } });
    expect(await onA.begin(request)).toMatchObject({ decision: "replay", callId: resent.callId, key: `${first.key}:g2`, result: { messageId: "m-2" } });
  });

  it("an expiry, the key then run again through B: A's next begin replays B's outcome, not its cached one", async () => {
    const { request } = await replayedOnA("expiry", { v: "old" }, { ttlSeconds: 1 });
    // B replays until the outcome's second has passed, then executes afresh.
    let retaken = await onB.begin(request);
    for (const deadline = Date.now() + 60_000; retaken.decision === "replay" && Date.now() < deadline; retaken = await onB.begin(request)) await sleep(100);
    const fresh = expectDecision(retaken, "execute");
    // The new outcome is kept an hour, so A's next begin must replay it.
    await policies.put(request.tool, { loop: { enabled: false }, ttlSeconds: 3600 });
    await onB.complete(fresh.callId, { leaseToken: fresh.leaseToken, outcome: "succeeded", result: { v: "new" } });
    expect(await onA.begin(request)).toMatchObject({ decision: "replay", callId: fresh.callId, result: { v: "new" } });
  });

  /** A tool under the default loop detector (3 repeats of a cycle of up to 2 calls: blocked). */
  async function loopTool(label: string) {
    const tool = uniqueTool(label);
    await policies.put(tool, { loop: { enabled: true, repeats: 3, maxCycleLength: 2, action: "block" } });
    const runId = uniqueRun(label);
    return (to: string) => ({ tool, runId, args: { to } });
  }

  it("a run aborted through B after A replayed in it: A's next replay of the completed call is refused, as is a new step", async () => {
    const { request, first } = await replayedOnA("abort", { sent: true });
    const aborted = await onB.raw("POST", `/api/v1/runs/${request.runId}/abort`, { reason: "the user cancelled" });
    expect(aborted.status).toBe(200);
    expect(await onA.begin(request)).toMatchObject({ decision: "refused", reason: "run_aborted", key: first.key });
    expect(await onA.begin({ ...request, stepId: "another" })).toMatchObject({ decision: "refused", reason: "run_aborted" });
  });

  it("a loop line through B completes a cycle A began: A's next begin is blocked", async () => {
    const call = await loopTool("loopthere");
    await runOnce(onA, call("x@example.com"));
    // B's replay is the run's second X; A alone has seen one.
    expectDecision(await onB.begin(call("x@example.com")), "replay");
    expect(await onA.begin(call("x@example.com"))).toMatchObject({ decision: "blocked", reason: "loop_detected", repeats: 3 });
  });

  it("a loop line through B breaks a cycle on A: A's next begin replays", async () => {
    const call = await loopTool("loopbroken");
    await runOnce(onA, call("x@example.com"));
    expectDecision(await onA.begin(call("x@example.com")), "replay");
    // A has seen X, X: a third X is blocked unless A sees B's Y in between.
    await runOnce(onB, call("y@example.com"));
    expectDecision(await onA.begin(call("x@example.com")), "replay");
  });
});
