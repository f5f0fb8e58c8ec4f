import { beforeAll, describe, expect, it } from "vitest";
import { type CallSummary, CallLedgerSchema, CallListSchema, RunDetailSchema, RunListSchema } from "../../lib/contract/calls";
import { CallStatusSchema } from "../../lib/contract/v1";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, agentAsk, agentRead, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** The calls and runs explorer of the operator API, over real HTTP on both providers. */
describe.each(PROVIDERS)("%s: calls and runs explorer", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let agent: TestClient;
  let agentB: TestClient;
  let policies: AdminClient;
  let root: OperatorClient;
  let viewer: OperatorClient;
  let projectId: string;
  let projectB: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const [a, b] = [await createTestProject(server.databaseUrl, "A"), await createTestProject(server.databaseUrl, "B")];
    projectId = a.projectId;
    projectB = b.projectId;
    agent = new TestClient(server.baseUrl, a.apiKey);
    agentB = new TestClient(server.baseUrl, b.apiKey);
    policies = new AdminClient(server.baseUrl, projectId);
    root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    viewer = await createOperator(root, projectId, "viewer");
  });

  const list = (client: OperatorClient, query: Record<string, string | number>, project = projectId) =>
    client.call(CallListSchema, "GET", client.p(project, `/calls?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`));

  /** Every page of a query, following nextCursor; `between` runs after each page (to insert meanwhile). */
  async function allPages(query: Record<string, string | number>, between?: () => Promise<void>): Promise<{ calls: CallSummary[]; pages: number }> {
    const calls: CallSummary[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(viewer, { ...query, ...(cursor ? { cursor } : {}) });
      calls.push(...page.calls);
      cursor = page.nextCursor;
      pages++;
      await between?.();
    } while (cursor && pages < 100);
    return { calls, pages };
  }

  it("filters by tool, status, decision, run, agent and key prefix; each item summarises its record", async () => {
    const tool = uniqueTool("charge");
    const other = uniqueTool("email");
    const run = uniqueRun("filters");
    const paid = await runOnce(agent, { tool, runId: run, stepId: "pay", agentId: "billing", args: { amount: 42 } }, { chargeId: "ch_1" });
    expectDecision(await agent.begin({ tool, runId: run, stepId: "pay", args: { amount: "42.00" } }), "replay");
    const running = expectDecision(await agent.begin({ tool, runId: run, stepId: "refund", args: { amount: 1 } }), "execute");
    const failed = expectDecision(await agent.begin({ tool: other, runId: run, stepId: "notify", args: { to: "a@b.c" } }), "execute");
    await agent.complete(failed.callId, { leaseToken: failed.leaseToken, outcome: "failed", error: { message: "bounced", retryable: false } });
    await runOnce(agent, { tool: other, runId: uniqueRun("elsewhere"), stepId: "notify" });

    const byTool = await list(viewer, { tool });
    expect(byTool.calls.map((c) => c.callId)).toEqual([running.callId, paid.callId]);
    expect(byTool.nextCursor).toBeNull();
    expect(byTool.calls[1]).toMatchObject({
      callId: paid.callId,
      tool,
      key: paid.key,
      runId: run,
      stepId: "pay",
      agentId: "billing",
      status: "succeeded",
      attempts: 1,
      replays: 1,
      generation: 1,
      lastDecision: { decision: "replay" },
    });
    expect(Date.parse(byTool.calls[1]!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(byTool.calls[1]!.createdAt));
    expect(byTool.calls[0]).toMatchObject({ status: "in_progress", completedAt: null, lastDecision: { decision: "execute" } });

    expect((await list(viewer, { tool, status: "in_progress" })).calls.map((c) => c.callId)).toEqual([running.callId]);
    expect((await list(viewer, { runId: run, decision: "replay" })).calls.map((c) => c.callId)).toEqual([paid.callId]);
    expect((await list(viewer, { runId: run, status: "failed" })).calls.map((c) => c.callId)).toEqual([failed.callId]);
    expect((await list(viewer, { runId: run })).calls.map((c) => c.callId)).toEqual([failed.callId, running.callId, paid.callId]);
    expect((await list(viewer, { runId: run, agentId: "billing" })).calls.map((c) => c.callId)).toEqual([paid.callId]);
    expect((await list(viewer, { key: paid.key.slice(0, 12) })).calls.map((c) => c.callId)).toContain(paid.callId);
    expect((await list(viewer, { key: paid.key })).calls.map((c) => c.callId)).toEqual([paid.callId]);
    expect((await list(viewer, { tool, key: "zzzz" })).calls).toEqual([]);
    expect((await list(viewer, { tool: uniqueTool("never") })).calls).toEqual([]);
  });

  it("a chart bar's calls: any of several decisions, taken within a window (not the calls first seen in it)", async () => {
    const tool = uniqueTool("bar");
    const run = uniqueRun("bar");
    const early = await runOnce(agent, { tool, runId: run, stepId: "early", args: { step: "early" } });
    const fresh = await runOnce(agent, { tool, runId: run, stepId: "fresh", args: { step: "fresh" } });
    const windowStart = new Date(Date.now() + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // In the window: a replay of the early call (first seen before the window) and a brand-new execute.
    expectDecision(await agent.begin({ tool, runId: run, stepId: "early", args: { step: "early" } }), "replay");
    const inWindow = expectDecision(await agent.begin({ tool, runId: run, stepId: "late", args: { step: "late" } }), "execute");
    const windowEnd = new Date(Date.now() + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expectDecision(await agent.begin({ tool, runId: run, stepId: "fresh", args: { step: "fresh" } }), "replay");

    const ids = async (query: Record<string, string>) => (await list(viewer, { tool, ...query })).calls.map((c) => c.callId);
    // Dedup hits in the window: the early call only (the fresh call's replay came after it).
    expect(await ids({ decision: "replay,in_progress,refused", decidedFrom: windowStart, decidedTo: windowEnd })).toEqual([early.callId]);
    // Dedup hits at any time: both replayed calls.
    expect(await ids({ decision: "replay,in_progress,refused" })).toEqual([fresh.callId, early.callId]);
    // Executions in the window: the call that began then, not the ones first executed before it.
    expect(await ids({ decision: "execute,verify", decidedFrom: windowStart, decidedTo: windowEnd })).toEqual([inWindow.callId]);
    // Any begin in the window, whatever its decision.
    expect(await ids({ decidedFrom: windowStart, decidedTo: windowEnd })).toEqual([inWindow.callId, early.callId]);

    const bad = await viewer.raw("GET", viewer.p(projectId, `/calls?decision=replay,maybe`));
    expect(bad.status).toBe(400);
    const backwards = await viewer.raw("GET", viewer.p(projectId, `/calls?decidedFrom=${windowEnd}&decidedTo=${windowStart}`));
    expect(backwards.status).toBe(400);
  });

  it("a whole key finds its resend generations; evicted calls are found by decision", async () => {
    const request = { tool: uniqueTool("invoice"), runId: uniqueRun("gen"), stepId: "send" };
    const first = await runOnce(agent, request);
    const asked = await agentAsk(agent, first.callId);
    await root.approve(projectId, asked.requestId);
    const { bypassToken } = await agentRead(agent, asked.requestId);
    const second = await runOnce(agent, { ...request, bypassToken });
    const generations = await list(viewer, { key: first.key });
    expect(generations.calls.map((c) => [c.callId, c.key, c.generation])).toEqual([
      [second.callId, `${first.key}:g2`, 2],
      [first.callId, first.key, 1],
    ]);

    await root.call(CallStatusSchema, "POST", root.p(projectId, `/calls/${second.callId}/evict`), { reason: "resend went to the wrong address" });
    const evicted = await list(viewer, { tool: request.tool, decision: "evicted" });
    expect(evicted.calls.map((c) => c.callId)).toEqual([second.callId]);
    expect(evicted.calls[0]!.status).toBe("released");
  });

  it("pages are complete and disjoint, newest first, and stay so while calls are inserted", async () => {
    const tool = uniqueTool("page");
    const run = uniqueRun("page");
    const made: string[] = [];
    for (let i = 0; i < 23; i++) made.push((await runOnce(agent, { tool, runId: run, stepId: `s${i}`, args: { i } })).callId);

    let inserted = 0;
    const { calls, pages } = await allPages({ tool, limit: 5 }, async () => {
      // A call made between pages is newer than every cursor: it never shifts or repeats a page.
      await runOnce(agent, { tool, runId: run, stepId: `late${inserted}`, args: { late: inserted++ } });
    });
    expect(pages).toBe(5);
    const ids = calls.map((c) => c.callId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...made].reverse());
    const times = calls.map((c) => Date.parse(c.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);

    // The late ones are there from the top on the next read, and the default page size applies.
    const fresh = await list(viewer, { tool });
    expect(fresh.calls).toHaveLength(28);
    expect(fresh.nextCursor).toBeNull();
    const capped = await list(viewer, { tool, limit: 200 });
    expect(capped.calls).toHaveLength(28);
  });

  it("filters by time: from inclusive, to exclusive, on when the call was first seen", async () => {
    const tool = uniqueTool("time");
    for (let i = 0; i < 6; i++) {
      await runOnce(agent, { tool, runId: uniqueRun("t"), stepId: "s" });
      await new Promise((r) => setTimeout(r, 15));
    }
    const all = (await list(viewer, { tool })).calls;
    const from = all[4]!.createdAt;
    const to = all[1]!.createdAt;
    const window = (await list(viewer, { tool, from, to })).calls.map((c) => c.callId);
    const expected = all.filter((c) => Date.parse(c.createdAt) >= Date.parse(from) && Date.parse(c.createdAt) < Date.parse(to)).map((c) => c.callId);
    expect(window).toEqual(expected);
    expect(window).toEqual([all[2]!.callId, all[3]!.callId, all[4]!.callId]);
    expect((await list(viewer, { tool, from: new Date(Date.now() + 60_000).toISOString() })).calls).toEqual([]);
  });

  it.each([
    ["an unknown status", { status: "done" }, "status"],
    ["an unknown decision", { decision: "maybe" }, "decision"],
    ["a zero limit", { limit: 0 }, "limit"],
    ["a limit over 200", { limit: 201 }, "limit"],
    ["a non-numeric limit", { limit: "ten" }, "limit"],
    ["a cursor it did not hand out", { cursor: "bm90LWEtY3Vyc29y" }, "cursor"],
    ["a time that is not ISO 8601", { from: "yesterday" }, "from"],
    ["from after to", { from: "2026-01-02T00:00:00Z", to: "2026-01-01T00:00:00Z" }, "from"],
    ["an empty tool", { tool: "" }, "tool"],
    ["an unknown parameter", { colour: "red" }, ""],
  ])("answers 400 with the issues for %s", async (_label, query, field) => {
    const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    const res = await viewer.expectError("GET", viewer.p(projectId, `/calls?${search}`));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_input");
    expect(res.body.error.issues?.length).toBeGreaterThan(0);
    if (field) expect(res.body.error.issues!.map((i) => i.path[0])).toContain(field);
  });

  it("the runs list answers 400 on a bad cursor or limit too", async () => {
    expect((await viewer.expectError("GET", viewer.p(projectId, "/runs?cursor=abc"))).status).toBe(400);
    expect((await viewer.expectError("GET", viewer.p(projectId, "/runs?limit=999"))).status).toBe(400);
  });

  it("a call's ledger: every event oldest first, who asked, args and result masked under the current policy", async () => {
    const tool = uniqueTool("secret");
    const run = uniqueRun("ledger");
    const request = { tool, runId: run, stepId: "pay", args: { card: "4242", amount: 5 } };
    const first = expectDecision(await agent.begin(request), "execute");
    await agent.heartbeat(first.callId, first.leaseToken);
    await agent.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result: { token: "tok_1", ok: true } });
    expectDecision(await agent.begin({ ...request, agentId: "sub" }), "replay");
    // Masking added after the call was stored still hides what was stored before it.
    await policies.put(tool, { redactFields: ["card", "token"] });

    const ledger = await viewer.call(CallLedgerSchema, "GET", viewer.p(projectId, `/calls/${first.callId}/events`));
    expect(ledger.events.map((e) => `${e.type}:${e.decision}:${e.attempt}:${e.agentId ?? "-"}`)).toEqual([
      "begin:execute:1:-",
      "heartbeat:extended:1:-",
      "complete:succeeded:1:-",
      "begin:replay:1:sub",
    ]);
    expect(ledger.args).toEqual({ amount: 5, card: "[REDACTED]" });
    expect(ledger.result).toEqual({ ok: true, token: "[REDACTED]" });
    expect(ledger.redactFields).toEqual(["card", "token"]);
    expect(ledger.truncated).toBe(false);
    const times = ledger.events.map((e) => Date.parse(e.at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);

    expect((await viewer.expectError("GET", viewer.p(projectId, "/calls/call_nope/events"))).status).toBe(404);
  });

  it("runs: newest first with counts, paged by cursor; a run's calls and events across its subagents", async () => {
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = uniqueRun(`r${i}`);
      runs.push(run);
      await runOnce(agent, { tool: "plan", runId: run, stepId: "plan", args: { i } });
      await runOnce(agent, { tool: "charge", runId: run, stepId: "charge", agentId: "billing", args: { i } });
      expectDecision(await agent.begin({ tool: "charge", runId: run, stepId: "charge", agentId: "parent", args: { i } }), "replay");
    }
    // A later call in the oldest run does not move it: runs are ordered by their first call.
    await runOnce(agent, { tool: "email", runId: runs[0]!, stepId: "notify", agentId: "notifier" });

    const first = await viewer.call(RunListSchema, "GET", viewer.p(projectId, "/runs?limit=2"));
    expect(first.runs.map((r) => r.runId)).toEqual([runs[2], runs[1]]);
    expect(first.nextCursor).not.toBeNull();
    const second = await viewer.call(RunListSchema, "GET", viewer.p(projectId, `/runs?limit=2&cursor=${first.nextCursor}`));
    expect(second.runs[0]!.runId).toBe(runs[0]);
    expect(second.runs.map((r) => r.runId)).not.toContain(runs[1]);
    expect(second.runs[0]).toMatchObject({ calls: 3, tools: 3, agents: 4, succeeded: 3, failed: 0, inProgress: 0, begins: 4, dedupHits: 1, blocked: 0 });
    expect(Date.parse(second.runs[0]!.lastActivityAt)).toBeGreaterThan(Date.parse(second.runs[0]!.startedAt));

    // Walking every page of runs lists each run once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { runs: { runId: string }[]; nextCursor: string | null } = await viewer.call(
        RunListSchema,
        "GET",
        viewer.p(projectId, `/runs?limit=3${cursor ? `&cursor=${cursor}` : ""}`),
      );
      seen.push(...page.runs.map((r) => r.runId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(runs));

    const detail = await viewer.call(RunDetailSchema, "GET", viewer.p(projectId, `/runs/${runs[0]}`));
    expect(detail.calls.map((c) => `${c.tool}:${c.agentId ?? "-"}`)).toEqual(["plan:-", "charge:billing", "email:notifier"]);
    expect(new Set(detail.events.map((e) => e.agentId ?? "-"))).toEqual(new Set(["-", "billing", "parent", "notifier"]));
    expect(detail.events.find((e) => e.agentId === "parent")).toMatchObject({ type: "begin", decision: "replay", callId: detail.calls[1]!.callId });
    expect(detail.truncated).toBe(false);
    expect((await viewer.expectError("GET", viewer.p(projectId, `/runs/${uniqueRun("none")}`))).status).toBe(404);
  });

  it("never crosses projects: B's calls, runs and ledgers are invisible from A, and A's members get 404 on B", async () => {
    const tool = uniqueTool("b_only");
    const run = uniqueRun("b");
    const callB = await runOnce(agentB, { tool, runId: run, stepId: "s" });
    expect((await list(root, { tool })).calls).toEqual([]);
    expect((await list(root, { tool }, projectB)).calls.map((c) => c.callId)).toEqual([callB.callId]);
    expect((await list(root, { runId: run })).calls).toEqual([]);
    for (const path of [`/calls/${callB.callId}/events`, `/runs/${run}`]) {
      expect((await viewer.expectError("GET", viewer.p(projectId, path))).status, path).toBe(404);
    }
    for (const path of ["/calls", "/runs", `/runs/${run}`, `/calls/${callB.callId}/events`]) {
      expect((await viewer.expectError("GET", viewer.p(projectB, path))).status, path).toBe(404);
    }
  });

  it("viewers read every explorer route; without a session (or with an API key) it is 401", async () => {
    const call = await runOnce(agent, { tool: uniqueTool("v"), runId: uniqueRun("v"), stepId: "s" });
    const anonymous = new OperatorClient(server.baseUrl, null);
    for (const path of ["/calls", "/runs", `/calls/${call.callId}/events`]) {
      expect((await viewer.raw("GET", viewer.p(projectId, path))).status, path).toBe(200);
      expect((await anonymous.expectError("GET", anonymous.p(projectId, path))).status, path).toBe(401);
      expect((await agent.expectError("GET", viewer.p(projectId, path))).status, `${path} with an API key`).toBe(401);
    }
  });
});
