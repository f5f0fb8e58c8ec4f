import { beforeAll, describe, expect, it } from "vitest";
import { RunCompensationSchema } from "../../lib/contract/sagas";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";
import { sql } from "../helpers/sql";

/**
 * Kinds of call (DESIGN.md "Kinds of call", lib/core/begin-guards.ts) over real HTTP: undos are
 * never stopped by forward work's guards, reads and resends are never blockable loop steps, an
 * aborted run takes no new forward step.
 */
describe.each(PROVIDERS)("%s: kinds of call and the guards that apply to them", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let client: TestClient;
  let admin: AdminClient;
  let operator: OperatorClient;
  let projectId: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl);
    projectId = project.projectId;
    client = new TestClient(server.baseUrl, project.apiKey);
    admin = new AdminClient(server.baseUrl, project.projectId);
    operator = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
  });

  const plan = async (runId: string) => RunCompensationSchema.parse(await (await client.raw("GET", `/api/v1/runs/${runId}/compensation`)).json());

  it("undos under a blocking loop policy and a spent budget: every undo executes and the plan completes", async () => {
    const reserve = uniqueTool("reserve");
    const release = uniqueTool("release_all");
    // Both tools budgeted at 3 calls a run; loops blocked at 3 repeats (the default).
    for (const tool of [reserve, release]) await admin.put(tool, { budget: { maxCallsPerRun: 3 } });
    const runId = uniqueRun("undo");
    // Three steps whose undos are the same call (same tool, same args): a 1-cycle of undos.
    for (const sku of ["a", "b", "c"]) {
      const d = expectDecision(await client.begin({ tool: reserve, runId, stepId: `reserve_${sku}`, args: { sku } }), "execute");
      await client.complete(d.callId, { leaseToken: d.leaseToken, outcome: "succeeded", result: { sku }, compensation: { tool: release, args: { all: true } } });
    }
    // The run's budget is spent: a fourth forward step is blocked.
    expectDecision(await client.begin({ tool: reserve, runId, stepId: "reserve_d", args: { sku: "d" } }), "blocked");
    const aborted = await client.raw("POST", `/api/v1/runs/${runId}/abort`, { reason: "the user cancelled" });
    expect(aborted.status).toBe(200);
    for (const step of (await plan(runId)).steps) {
      const undo = await client.raw("POST", `/api/v1/runs/${runId}/compensations/${step.callId}/begin`, {});
      const body = (await undo.json()) as { decision: string; callId: string; leaseToken: string };
      expect(body, JSON.stringify(body)).toMatchObject({ decision: "execute" });
      await client.complete(body.callId, { leaseToken: body.leaseToken, outcome: "succeeded", result: { released: true } });
    }
    expect((await plan(runId)).state).toBe("compensated");
  });

  it("a read-only tool's 3rd, 4th, 5th identical call in a run executes (a status poll is no loop)", async () => {
    const tool = uniqueTool("order_status");
    await admin.put(tool, { effect: "read" });
    const request = { tool, runId: uniqueRun("poll"), stepId: "poll", args: { orderId: "o-1" } };
    for (let i = 0; i < 5; i++) await runOnce(client, request, { status: "pending" });
  });

  it("an agent re-asking about an accepted job gets the operation each time, never blocked", async () => {
    const request = { tool: uniqueTool("start_export"), runId: uniqueRun("accepted"), stepId: "export", args: { table: "orders" } };
    const first = expectDecision(await client.begin(request), "execute");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "accepted", operationId: "op-1" });
    for (let i = 0; i < 4; i++) {
      const again = expectDecision(await client.begin(request), "replay");
      expect(again).toMatchObject({ status: "accepted", operationId: "op-1" });
    }
  });

  it("a resend that follows one replayed duplicate runs (bypass: allow), or asks for approval (bypass: approval): never blocked as a loop", async () => {
    const allowed = { tool: uniqueTool("send_invoice"), runId: uniqueRun("resend"), stepId: "send", args: { invoice: 7 } };
    await admin.put(allowed.tool, { bypass: "allow" });
    await runOnce(client, allowed);
    expectDecision(await client.begin(allowed), "replay");
    const resent = expectDecision(await client.begin({ ...allowed, bypass: { reason: "the customer lost it" } }), "execute");
    await client.complete(resent.callId, { leaseToken: resent.leaseToken, outcome: "succeeded", result: {} });

    const approval = { tool: uniqueTool("refund"), runId: uniqueRun("resend"), stepId: "refund", args: { amount: 5 } };
    await runOnce(client, approval);
    expectDecision(await client.begin(approval), "replay");
    expectDecision(await client.begin({ ...approval, bypass: { reason: "the first refund bounced" } }), "approval_required");
  });

  it("a forward begin in an aborted run is refused (run_aborted); its undos still run", async () => {
    const tool = uniqueTool("book_room");
    const runId = uniqueRun("aborted");
    const d = expectDecision(await client.begin({ tool, runId, stepId: "book", args: { room: 1 } }), "execute");
    await client.complete(d.callId, { leaseToken: d.leaseToken, outcome: "succeeded", result: { booking: "b1" }, compensation: { tool: uniqueTool("cancel_room"), args: { booking: "b1" } } });
    expect((await client.raw("POST", `/api/v1/runs/${runId}/abort`, { reason: "stop" })).status).toBe(200);
    const refused = expectDecision(await client.begin({ tool, runId, stepId: "book_more", args: { room: 2 } }), "refused");
    expect(refused).toMatchObject({ reason: "run_aborted", key: expect.any(String) });
    expect(refused.message).toMatch(/^stop: /);
    // The same forward step again: refused too, not replayed into a new attempt.
    expectDecision(await client.begin({ tool, runId, stepId: "book_more", args: { room: 2 } }), "refused");
    const [step] = (await plan(runId)).steps;
    const undo = (await (await client.raw("POST", `/api/v1/runs/${runId}/compensations/${step!.callId}/begin`, {})).json()) as { decision: string };
    expect(undo.decision).toBe("execute");
  });

  it("a run id a begin refuses is refused by every route that takes one (400 with issues), and nothing is aborted", async () => {
    const bad = encodeURIComponent("run\u200b1");
    const agent: [string, string, unknown?][] = [
      ["POST", `/api/v1/runs/${bad}/abort`, { reason: "stop" }],
      ["GET", `/api/v1/runs/${bad}/compensation`],
      ["POST", `/api/v1/runs/${bad}/compensations/call_x/begin`, {}],
    ];
    for (const [method, path, body] of agent) {
      const answer = await client.expectError(method, path, body);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.issues?.some((issue) => issue.path.join(".") === "runId"), path).toBe(true);
    }
    const runs = `/api/v1/operator/projects/${projectId}/runs/${bad}`;
    const operatorRoutes: [string, string, unknown?][] = [
      ["GET", runs],
      ["POST", `${runs}/abort`, { reason: "stop" }],
      ["GET", `${runs}/compensation`],
      ["GET", `${runs}/budget`],
      ["POST", `${runs}/budget`, { maxCallsPerRun: 3, reason: "x" }],
      ["POST", `${runs}/compensations/call_x/retry`, { reason: "x" }],
      ["POST", `${runs}/compensations/call_x/resolve`, { note: "x" }],
    ];
    for (const [method, path, body] of operatorRoutes) expect((await operator.raw(method, path, body)).status, `${method} ${path}`).toBe(400);
    const [row] = await sql<{ n: number | string }>(server.databaseUrl, "SELECT COUNT(*) AS n FROM run_aborts WHERE run_id = $1", ["run\u200b1"]);
    expect(Number(row!.n)).toBe(0);
  });
});
