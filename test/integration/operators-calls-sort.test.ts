import { beforeAll, describe, expect, it } from "vitest";
import { CALL_SORT_COLUMNS, type CallSummary, CallListSchema, RUN_SORT_COLUMNS, type RunSummary, RunListSchema } from "../../lib/contract/calls";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";

/**
 * The calls list sorted by the server (issue #38 §2 "Live and sortable"): in a project of its own
 * with more than two pages of calls whose tools, runs, agents, statuses and attempts are dealt
 * out unrelated to the order they were made in (with ties), walking every page of every sort
 * gives exactly the project's calls sorted globally (ties by id), none skipped or repeated.
 */
describe.each(PROVIDERS)("%s: calls list sorted by the server", (provider) => {
  let agent: TestClient;
  let viewer: OperatorClient;
  let projectId: string;
  const PAGE = 4;

  beforeAll(async () => {
    const server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl, "sorted calls");
    projectId = project.projectId;
    agent = new TestClient(server.baseUrl, project.apiKey);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    viewer = await createOperator(root, projectId, "viewer");

    // 14 calls; each column's values come from a rotation out of step with creation order and
    // with repeats, so every sort has ties for the id to break.
    const tools = ["mail", "charge", "zebra", "charge", "audit"];
    const runs = ["run_q", "run_b", "run_q", "run_m"];
    const agents = ["ops", null, "billing", "ops", null, "zed"];
    for (let i = 0; i < 14; i++) {
      const request = {
        tool: tools[(i * 3) % tools.length]!,
        runId: runs[(i * 7) % runs.length]!,
        stepId: `s${i}`,
        args: { i },
        ...(agents[(i * 5) % agents.length] ? { agentId: agents[(i * 5) % agents.length]! } : {}),
      };
      const mode = (i * 11) % 4;
      if (mode === 0) {
        await runOnce(agent, request);
      } else if (mode === 1) {
        // A retryable failure releases the call: its next begin is a second attempt.
        const first = expectDecision(await agent.begin(request), "execute");
        await agent.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error: { message: "flaky", retryable: true } });
        const second = expectDecision(await agent.begin(request), "execute");
        await agent.complete(second.callId, { leaseToken: second.leaseToken, outcome: "succeeded", result: { ok: true } });
      } else if (mode === 2) {
        const begun = expectDecision(await agent.begin(request), "execute");
        await agent.complete(begun.callId, { leaseToken: begun.leaseToken, outcome: "failed", error: { message: "no", retryable: false } });
      } else {
        expectDecision(await agent.begin(request), "execute"); // left running
      }
    }
  });

  const list = (query: Record<string, string | number>) =>
    viewer.call(CallListSchema, "GET", viewer.p(projectId, `/calls?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`));

  async function walk(sort: string | undefined, between?: () => Promise<void>): Promise<{ calls: CallSummary[]; pages: number }> {
    const calls: CallSummary[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list({ limit: PAGE, ...(sort ? { sort } : {}), ...(cursor ? { cursor } : {}) });
      calls.push(...page.calls);
      cursor = page.nextCursor;
      pages++;
      await between?.();
    } while (cursor && pages < 50);
    return { calls, pages };
  }

  const valueOf: Record<(typeof CALL_SORT_COLUMNS)[number], (c: CallSummary) => string | number | null> = {
    firstSeen: (c) => Date.parse(c.createdAt),
    tool: (c) => c.tool,
    status: (c) => c.status,
    run: (c) => c.runId,
    agent: (c) => c.agentId,
    attempts: (c) => c.attempts,
    key: (c) => c.key,
  };

  /** The documented order: the column (bytewise for text), blanks last either way, then id, in the sort's direction. */
  function sortedGlobally(calls: CallSummary[], column: (typeof CALL_SORT_COLUMNS)[number], dir: "asc" | "desc"): string[] {
    const sign = dir === "asc" ? 1 : -1;
    const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
    return [...calls]
      .sort((x, y) => {
        const [a, b] = [valueOf[column](x), valueOf[column](y)];
        if ((a === null) !== (b === null)) return a === null ? 1 : -1;
        return (a === null || b === null ? 0 : sign * cmp(a, b)) || sign * cmp(x.callId, y.callId);
      })
      .map((c) => c.callId);
  }

  it("walking every page of each sort gives the project's calls in that order, each once", async () => {
    const everything = (await list({ limit: 200 })).calls;
    expect(everything).toHaveLength(14);
    // The fixture really has ties and spread: several values per column, some repeated.
    expect(new Set(everything.map((c) => c.attempts))).toEqual(new Set([1, 2]));
    expect(new Set(everything.map((c) => c.status))).toEqual(new Set(["succeeded", "failed", "in_progress"]));
    expect(everything.some((c) => c.agentId === null)).toBe(true);

    for (const column of CALL_SORT_COLUMNS) {
      for (const dir of ["asc", "desc"] as const) {
        const { calls, pages } = await walk(`${column}:${dir}`);
        const ids = calls.map((c) => c.callId);
        expect(pages, `${column}:${dir}`).toBe(4);
        expect(ids, `${column}:${dir}`).toEqual(sortedGlobally(everything, column, dir));
      }
    }
    // No sort is newest first, like firstSeen:desc, and its cursors are the same.
    expect((await walk(undefined)).calls.map((c) => c.callId)).toEqual(sortedGlobally(everything, "firstSeen", "desc"));
    // The first page of a sort is its global extreme, wherever that call sits newest first.
    const zebra = everything.filter((c) => c.tool === "zebra").map((c) => c.callId).sort().reverse()[0];
    expect((await list({ limit: PAGE, sort: "tool:desc" })).calls[0]!.callId).toBe(zebra);
  });

  it("calls made while a sort is walked never shift a page: every earlier call once, in order", async () => {
    const before = (await list({ limit: 200 })).calls;
    let n = 0;
    const { calls } = await walk("tool:asc", async () => {
      // One sorts before every cursor (aardvark), one after most of them (zzz).
      await runOnce(agent, { tool: n % 2 === 0 ? "aardvark" : "zzz", runId: "run_late", stepId: `late${n}`, args: { late: n++ } });
    });
    const ids = calls.map((c) => c.callId);
    expect(new Set(ids).size).toBe(ids.length);
    const earlier = new Set(before.map((c) => c.callId));
    expect(ids.filter((id) => earlier.has(id))).toEqual(sortedGlobally(before, "tool", "asc"));
    // A late call listed at all is in its sorted place.
    const tools = calls.map((c) => c.tool);
    expect(tools).toEqual([...tools].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it("runs: walking every page of each sort gives every run once, in that order (ties by the run's first call)", async () => {
    const query = (q: Record<string, string | number>) =>
      viewer.call(RunListSchema, "GET", viewer.p(projectId, `/runs?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`));
    const all = (await query({ limit: 200 })).runs;
    expect(all.length).toBeGreaterThanOrEqual(4);
    // The first call of each run (the tiebreak), from the calls list.
    const calls = (await list({ limit: 200, sort: "firstSeen:asc" })).calls;
    const firstCall = new Map<string, string>();
    for (const c of calls) if (!firstCall.has(c.runId)) firstCall.set(c.runId, c.callId);
    const valueOf: Record<(typeof RUN_SORT_COLUMNS)[number], (r: RunSummary) => string | number> = {
      started: (r) => Date.parse(r.startedAt),
      run: (r) => r.runId,
      lastActivity: (r) => Date.parse(r.lastActivityAt),
      calls: (r) => r.calls,
      agents: (r) => r.agents,
      failed: (r) => r.failed,
      dedupHits: (r) => r.dedupHits,
    };
    const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
    for (const column of RUN_SORT_COLUMNS) {
      for (const dir of ["asc", "desc"] as const) {
        const sign = dir === "asc" ? 1 : -1;
        const expected = [...all]
          .sort((x, y) => sign * (cmp(valueOf[column](x), valueOf[column](y)) || cmp(firstCall.get(x.runId)!, firstCall.get(y.runId)!)))
          .map((r) => r.runId);
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page = await query({ limit: 1, sort: `${column}:${dir}`, ...(cursor ? { cursor } : {}) });
          seen.push(...page.runs.map((r) => r.runId));
          cursor = page.nextCursor;
          pages++;
        } while (cursor && pages < 50);
        expect(seen, `${column}:${dir}`).toEqual(expected);
      }
    }
    const bad = await viewer.expectError("GET", viewer.p(projectId, "/runs?sort=saga:asc"));
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues!.map((i) => i.path[0])).toContain("sort");
  });

  it.each([
    ["an unknown column", "lastDecision:asc"],
    ["no direction", "tool"],
    ["an unknown direction", "tool:up"],
    ["the page URL's form", "-tool"],
  ])("answers 400 with zod issues for a sort with %s", async (_label, sort) => {
    const res = await viewer.expectError("GET", viewer.p(projectId, `/calls?sort=${encodeURIComponent(sort)}`));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_input");
    expect(res.body.error.issues!.map((i) => i.path[0])).toContain("sort");
  });

  it("a cursor resumes only the sort it came from (400 otherwise)", async () => {
    const byTool = await list({ limit: PAGE, sort: "tool:asc" });
    const newest = await list({ limit: PAGE });
    for (const [cursor, sort] of [
      [byTool.nextCursor!, "key:asc"],
      [byTool.nextCursor!, undefined],
      [newest.nextCursor!, "tool:asc"],
    ] as const) {
      const query = new URLSearchParams({ cursor, ...(sort ? { sort } : {}) });
      const res = await viewer.expectError("GET", viewer.p(projectId, `/calls?${query}`));
      expect(res.status).toBe(400);
      expect(res.body.error.issues!.map((i) => i.path[0])).toContain("cursor");
    }
  });
});
