import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunBudgetSchema } from "../../lib/contract/budgets";
import { CallListSchema } from "../../lib/contract/calls";
import { ShadowResponseSchema } from "../../lib/contract/stats";
import type { BeginRequest, BeginResponse } from "../../lib/contract/v1";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";
import { sql } from "../helpers/sql";

const NO_LOOPS = { loop: { enabled: false } };

function tally(decisions: BeginResponse[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of decisions) {
    const name = d.decision === "blocked" ? `blocked:${d.reason}` : d.decision === "execute" && d.shadowDecision ? `execute:${d.shadowDecision}` : d.decision;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** The SDK sends the same begin again after a retryable 503 (a lock or pool timeout on a loaded machine). */
async function beginAsTheSdkDoes(client: TestClient, request: BeginRequest): Promise<BeginResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.begin(request);
    } catch (error) {
      if (attempt >= 5 || !String(error).includes("HTTP 503")) throw error;
    }
  }
}

interface EventRow {
  decision: string;
  call_id: string | null;
  detail: string | null;
  shadow_decision: string | null;
}

/**
 * Budgets and shadow mode over real HTTP, two `next start` processes on one database per
 * provider: the database alone decides how many of a run's concurrent begins fit its budget.
 */
describe.each(PROVIDERS)("%s: run budgets and shadow mode", (provider) => {
  let db: TestDatabase;
  let servers: TestServer[];
  let clients: TestClient[];
  let admin: AdminClient;
  let operator: OperatorClient;
  let projectId: string;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url);
    projectId = project.projectId;
    // One after the other: each bootstraps the same admin user at start.
    // 50 begins of one run queue on its budget row: on a loaded machine, longer than the production lock timeout.
    const env = { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, IDEMGATE_PG_LOCK_TIMEOUT_MS: "60000", IDEMGATE_PG_STATEMENT_TIMEOUT_MS: "60000" };
    servers = [await startServer(db.url, env)];
    servers.push(await startServer(db.url, env));
    clients = servers.map((s) => new TestClient(s.baseUrl, project.apiKey));
    admin = new AdminClient(servers[0]!.baseUrl, projectId);
    operator = await OperatorClient.signIn(servers[1]!.baseUrl, ROOT.email, ROOT.password);
    // Calls without args repeat one loop signature: these cases are about budgets, not loops.
    await admin.put("*", NO_LOOPS);
  });

  afterAll(async () => {
    await Promise.all(servers?.map((s) => s.stop()) ?? []);
    await db?.drop();
  });

  const events = (runId: string) =>
    sql<EventRow>(db.url, "SELECT decision, call_id, detail, shadow_decision FROM events WHERE project_id = $1 AND run_id = $2 AND type = 'begin' ORDER BY id", [projectId, runId]);

  it("50 concurrent begins of a run with 10 calls left, across two servers → exactly 10 execute", async () => {
    const tool = uniqueTool("send_sms");
    await admin.put(tool, { budget: { maxCallsPerRun: 12 } });
    const runId = uniqueRun("race");
    // Two calls spent before the race: 10 left.
    for (const step of ["warmup_1", "warmup_2"]) await runOnce(clients[0]!, { tool, runId, stepId: step });
    const requests: BeginRequest[] = Array.from({ length: 50 }, (_, i) => ({ tool, runId, stepId: `sms_${i}`, args: { to: `+1555000${i}` } }));
    const decisions = await Promise.all(requests.map((request, i) => beginAsTheSdkDoes(clients[i % 2]!, request)));
    expect(tally(decisions)).toEqual({ execute: 10, "blocked:budget_exceeded": 40 });
    const blocked = expectDecision(decisions.find((d) => d.decision === "blocked")!, "blocked");
    expect(blocked).toMatchObject({ reason: "budget_exceeded", pattern: [], repeats: 0, budget: { exceeded: "calls", calls: 12, maxCalls: 12 } });
    expect(blocked.message).toMatch(/^stop: this run has made 12 tool calls of 12 allowed/);
    const budget = await operator.call(RunBudgetSchema, "GET", `/api/v1/operator/projects/${projectId}/runs/${runId}/budget`);
    expect(budget).toMatchObject({ calls: 12, spent: 0, currency: "USD", maxCallsPerRun: null });
    // The ledger: one `blocked` event per refusal, reason and spend in its detail (what alerts read).
    // Refusals are decision-only events, written a few milliseconds behind their answers.
    const blockedEvents = async () => (await events(runId)).filter((e) => e.decision === "blocked");
    await waitFor(async () => (await blockedEvents()).length >= 40, 15_000, "40 blocked events on the ledger");
    const refusals = await blockedEvents();
    expect(refusals).toHaveLength(40);
    expect(JSON.parse(refusals[0]!.detail!)).toMatchObject({ reason: "budget_exceeded", budget: { exceeded: "calls", calls: 12, maxCalls: 12 } });
  });

  it("replays cost nothing, a released retryable failure counts once, the project default budgets every tool", async () => {
    await admin.put("*", { ...NO_LOOPS, budget: { maxCallsPerRun: 2 } });
    try {
      const runId = uniqueRun("count");
      const flaky = { tool: uniqueTool("flaky"), runId, stepId: "a" };
      const first = expectDecision(await clients[0]!.begin(flaky), "execute");
      await clients[0]!.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error: { message: "timeout", retryable: true } });
      // The retry of the released call is the same call: still 1 counted.
      const retry = expectDecision(await clients[1]!.begin(flaky), "execute");
      expect(retry.attempt).toBe(2);
      await clients[1]!.complete(retry.callId, { leaseToken: retry.leaseToken, outcome: "succeeded", result: { ok: 1 } });
      for (let i = 0; i < 2; i++) expectDecision(await clients[i]!.begin(flaky), "replay");
      await runOnce(clients[0]!, { tool: uniqueTool("other"), runId, stepId: "b" });
      const third = expectDecision(await clients[1]!.begin({ tool: uniqueTool("third"), runId, stepId: "c" }), "blocked");
      expect(third.budget).toMatchObject({ exceeded: "calls", calls: 2, maxCalls: 2 });
      // Replays of paid steps still answer once the budget is spent.
      expectDecision(await clients[0]!.begin(flaky), "replay");
    } finally {
      await admin.put("*", NO_LOOPS);
    }
  });

  it("costs reported on complete and fixed costs per execution count; the answer says what was spent", async () => {
    const tool = uniqueTool("llm_call");
    await admin.put(tool, { budget: { maxCostPerRun: 20, currency: "USD", costPerExecution: 0.5 } });
    const runId = uniqueRun("cost");
    // 0.5 + 9.5; then 0.5 + a cost in another currency (on the ledger, not counted); then 0.5 + 9: 20.00 spent.
    const costs = [
      { amount: 9.5, currency: "USD" },
      { amount: 5, currency: "EUR" },
      { amount: 9, currency: "USD" },
    ];
    for (const [i, cost] of costs.entries()) {
      const d = expectDecision(await clients[i % 2]!.begin({ tool, runId, stepId: `step_${i}` }), "execute");
      await clients[i % 2]!.complete(d.callId, { leaseToken: d.leaseToken, outcome: "succeeded", result: {}, cost });
    }
    const over = expectDecision(await clients[1]!.begin({ tool, runId, stepId: "step_3" }), "blocked");
    expect(over.message).toBe("stop: this run has spent 20.00 USD of 20.00. Do not call more tools; report what you have to the user.");
    expect(over.budget).toEqual({ exceeded: "cost", calls: 3, maxCalls: null, spent: 20, maxCost: 20, currency: "USD" });
    const completes = await sql<{ detail: string }>(db.url, "SELECT detail FROM events WHERE project_id = $1 AND run_id = $2 AND type = 'complete' ORDER BY id", [projectId, runId]);
    expect(completes.map((e) => JSON.parse(e.detail))).toEqual(costs.map((cost) => ({ cost, costCounted: cost.currency === "USD" })));
  });

  it("an operator raises one run's budget (audited): the next begin executes, on the other server too", async () => {
    const tool = uniqueTool("refund");
    await admin.put(tool, { budget: { maxCallsPerRun: 1 } });
    const runId = uniqueRun("raise");
    const other = uniqueRun("raise_other");
    await runOnce(clients[0]!, { tool, runId, stepId: "r1" });
    await runOnce(clients[0]!, { tool, runId: other, stepId: "r1" });
    expectDecision(await clients[0]!.begin({ tool, runId, stepId: "r2" }), "blocked");
    const path = `/api/v1/operator/projects/${projectId}/runs/${runId}/budget`;
    const raised = await operator.call(RunBudgetSchema, "POST", path, { maxCallsPerRun: 3, reason: "customer approved two more refunds" });
    expect(raised).toMatchObject({ runId, calls: 1, maxCallsPerRun: 3 });
    await runOnce(clients[0]!, { tool, runId, stepId: "r2" });
    await runOnce(clients[1]!, { tool, runId, stepId: "r3" });
    expectDecision(await clients[1]!.begin({ tool, runId, stepId: "r4" }), "blocked");
    // Only that run: another run of the tool keeps the policy's limit.
    expectDecision(await clients[0]!.begin({ tool, runId: other, stepId: "r2" }), "blocked");
    const [audit] = await sql<{ action: string; target_id: string; detail: string; actor_label: string }>(
      db.url,
      "SELECT action, target_id, detail, actor_label FROM audit_log WHERE project_id = $1 AND action = 'run.budget_raised' AND target_id = $2",
      [projectId, runId],
    );
    expect(audit).toMatchObject({ target_id: runId, actor_label: ROOT.email });
    expect(JSON.parse(audit!.detail)).toMatchObject({ reason: "customer approved two more refunds", before: { maxCallsPerRun: null }, after: { maxCallsPerRun: 3 } });
    // A raise names at least one limit.
    expect((await operator.raw("POST", path, { reason: "x" })).status).toBe(400);
  });

  it("shadow mode: the gate answers execute and records what it would have done; executions are completed", async () => {
    const tool = uniqueTool("charge_shadow");
    await admin.put(tool, { mode: "shadow", onDuplicate: "refuse", loop: { enabled: true, repeats: 4 } });
    const runId = uniqueRun("shadow");
    const request = { tool, runId, stepId: "charge", args: { amount: 42 } };
    const first = expectDecision(await clients[0]!.begin(request), "execute");
    expect(first.shadowDecision).toBe("would_execute");
    // While the first runs: would have waited; the agent runs it anyway, as without a gate.
    const concurrent = expectDecision(await clients[1]!.begin({ ...request, waitMs: 2_000 }), "execute");
    expect(concurrent.shadowDecision).toBe("would_wait");
    expect(concurrent.callId).not.toBe(first.callId);
    for (const d of [first, concurrent]) await clients[0]!.complete(d.callId, { leaseToken: d.leaseToken, outcome: "succeeded", result: { charged: 42 } });
    const again = expectDecision(await clients[1]!.begin(request), "execute");
    expect(again.shadowDecision).toBe("would_refuse");
    await clients[1]!.complete(again.callId, { leaseToken: again.leaseToken, outcome: "succeeded", result: { charged: 42 } });
    // The concurrent duplicate was no step of the agent's (enforce would have answered in_progress):
    // the 3rd step is the 4th begin.
    const third = expectDecision(await clients[0]!.begin(request), "execute");
    expect(third.shadowDecision).toBe("would_refuse");
    await clients[0]!.complete(third.callId, { leaseToken: third.leaseToken, outcome: "succeeded", result: { charged: 42 } });
    // Loops too: the same call a 4th time in a row would have been blocked.
    const looped = expectDecision(await clients[0]!.begin(request), "execute");
    expect(looped.shadowDecision).toBe("would_block");
    const ledger = await events(runId);
    expect(ledger.map((e) => [e.decision, e.shadow_decision])).toEqual([
      ["execute", "would_execute"],
      ["execute", "would_wait"],
      ["execute", "would_refuse"],
      ["execute", "would_refuse"],
      ["execute", "would_block"],
    ]);
    expect(JSON.parse(ledger[2]!.detail!)).toMatchObject({ shadow: { decision: "refused", callId: first.callId } });
    const completed = await sql<{ state: string }>(db.url, "SELECT state FROM call_records WHERE project_id = $1 AND run_id = $2", [projectId, runId]);
    expect(completed.map((r) => r.state).sort()).toEqual(["in_progress", "succeeded", "succeeded", "succeeded", "succeeded"]);
    // "Would have prevented N duplicate executions", and the calls behind the number.
    const { tools } = await admin.list();
    expect(tools.find((t) => t.tool === tool)?.traffic.wouldPrevent).toBe(3);
    const prevented = await operator.call(CallListSchema, "GET", `/api/v1/operator/projects/${projectId}/calls?tool=${tool}&shadow=prevented`);
    expect(prevented.calls.map((c) => c.callId).sort()).toEqual([concurrent.callId, again.callId, third.callId].sort());
    // The overview's read (any member): the same number, per tool, over its range.
    const overview = await operator.call(ShadowResponseSchema, "GET", `/api/v1/operator/projects/${projectId}/stats/shadow`);
    expect(overview.tools.find((t) => t.tool === tool)).toEqual({ tool, wouldPrevent: 3 });
    const before = new Date(Date.parse(overview.from) - 3_600_000).toISOString();
    const empty = await operator.call(ShadowResponseSchema, "GET", `/api/v1/operator/projects/${projectId}/stats/shadow?${new URLSearchParams({ from: before, to: overview.from })}`);
    expect(empty.tools.find((t) => t.tool === tool)).toBeUndefined();
    expect((await operator.raw("GET", `/api/v1/operator/projects/${projectId}/stats/shadow?from=2020-01-01T00:00:00Z&to=2020-03-01T00:00:00Z`)).status).toBe(400);
  });

  it("shadow mode with a budget: would_block past the limit, and the agent still runs", async () => {
    const tool = uniqueTool("shadow_budget");
    await admin.put(tool, { mode: "shadow", budget: { maxCallsPerRun: 1 } });
    const runId = uniqueRun("shadow_budget");
    await runOnce(clients[0]!, { tool, runId, stepId: "one" });
    const over = expectDecision(await clients[1]!.begin({ tool, runId, stepId: "two" }), "execute");
    expect(over.shadowDecision).toBe("would_block");
    const ledger = await events(runId);
    expect(JSON.parse(ledger[1]!.detail!)).toMatchObject({ shadow: { decision: "blocked", reason: "budget_exceeded", budget: { calls: 1, maxCalls: 1 } } });
  });
});
