import { beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest } from "../../lib/contract/v1";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { InsightsClient } from "../helpers/insights-client";
import { sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** What the test saw the gate answer, per tool and rollup kind (and dedup hits per run). */
class Tally {
  readonly byTool = new Map<string, Map<string, number>>();
  readonly dedupByRun = new Map<string, number>();
  readonly beginsByRun = new Map<string, number>();
  add(tool: string, kind: string) {
    const kinds = this.byTool.get(tool) ?? new Map<string, number>();
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    this.byTool.set(tool, kinds);
  }
  of(tool: string, kind: string) {
    return this.byTool.get(tool)?.get(kind) ?? 0;
  }
}

/**
 * The dashboard's statistics over real HTTP: a scripted mix of decisions and outcomes on a few
 * tools, each answer tallied by the test, then every figure checked against that tally.
 */
describe.each(PROVIDERS)("%s: statistics from the rollups", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let client: TestClient;
  let admin: AdminClient;
  let insights: InsightsClient;
  const tally = new Tally();
  const tools = { pay: uniqueTool("pay"), mail: uniqueTool("mail"), slow: uniqueTool("slow"), loopy: uniqueTool("loopy") };
  let started: number;

  async function begin(request: BeginRequest) {
    const answer = await client.begin(request);
    tally.add(request.tool, answer.decision);
    tally.beginsByRun.set(request.runId, (tally.beginsByRun.get(request.runId) ?? 0) + 1);
    if (["replay", "in_progress", "refused"].includes(answer.decision)) tally.dedupByRun.set(request.runId, (tally.dedupByRun.get(request.runId) ?? 0) + 1);
    return answer;
  }

  async function finish(tool: string, answer: Awaited<ReturnType<typeof begin>>, outcome: "succeeded" | "failed" | "released") {
    if (answer.decision !== "execute") throw new Error(`expected execute, got ${answer.decision}`);
    const body =
      outcome === "succeeded"
        ? { leaseToken: answer.leaseToken, outcome, result: { ok: true } }
        : { leaseToken: answer.leaseToken, outcome: "failed" as const, error: { message: "boom", retryable: outcome === "released" } };
    await client.complete(answer.callId, body);
    tally.add(tool, `complete_${outcome}`);
  }

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl);
    client = new TestClient(server.baseUrl, project.apiKey);
    admin = new AdminClient(server.baseUrl, project.projectId);
    insights = new InsightsClient(server.baseUrl, project.projectId);
    started = Date.now();

    // Loop detection stays on for `loopy` only: elsewhere repeats must stay replays, not `blocked`.
    const noLoops = { loop: { enabled: false } };
    await admin.put(tools.pay, noLoops, "test");
    await admin.put(tools.mail, { ...noLoops, onDuplicate: "refuse", onArgsMismatch: "reject" }, "test");
    await admin.put(tools.slow, { ...noLoops, leaseSeconds: 1 }, "test");

    // pay: executions, replays (the busy run), a live attempt, a permanent and a retryable failure.
    const busy = { tool: tools.pay, runId: uniqueRun("busy"), stepId: "charge" };
    await finish(tools.pay, await begin(busy), "succeeded");
    for (let i = 0; i < 5; i++) await begin(busy);
    const live = { tool: tools.pay, runId: uniqueRun("live"), stepId: "charge" };
    await begin(live);
    await begin(live);
    await begin(live);
    const failing = { tool: tools.pay, runId: uniqueRun("fail"), stepId: "charge" };
    await finish(tools.pay, await begin(failing), "failed");
    await begin(failing); // a permanent failure replays
    const flaky = { tool: tools.pay, runId: uniqueRun("flaky"), stepId: "charge" };
    await finish(tools.pay, await begin(flaky), "released");
    await finish(tools.pay, await begin(flaky), "succeeded"); // released: the next begin executes again

    // mail: refused repeats and a conflicting one.
    const mail = { tool: tools.mail, runId: uniqueRun("mail"), stepId: "send", args: { to: "a@example.com" } };
    await finish(tools.mail, await begin(mail), "succeeded");
    await begin(mail);
    await begin(mail);
    await begin({ ...mail, args: { to: "b@example.com" } });

    // loopy: the same call again and again in one run trips the loop detector.
    const loopy = { tool: tools.loopy, runId: uniqueRun("loopy"), stepId: "search", args: { q: "x" } };
    await finish(tools.loopy, await begin(loopy), "succeeded");
    for (let i = 0; i < 3; i++) await begin(loopy);

    // slow: a lease that runs out; the late complete is lease_lost.
    const slow = { tool: tools.slow, runId: uniqueRun("slow"), stepId: "export" };
    const first = await begin(slow);
    await sleep(1_200);
    await finish(tools.slow, await begin(slow), "succeeded");
    if (first.decision !== "execute") throw new Error("expected execute");
    const late = await client.expectError("POST", `/api/v1/calls/${first.callId}/complete`, { leaseToken: first.leaseToken, outcome: "succeeded" });
    expect(late.status).toBe(409);
    tally.add(tools.slow, "lease_lost");
  });

  it("dedup: figures per tool and in total match every decision the gate gave", async () => {
    const dedup = await insights.dedup();
    for (const [tool, kinds] of tally.byTool) {
      const figures = dedup.tools.find((t) => t.tool === tool)!;
      const begins = [...kinds].filter(([kind]) => !kind.startsWith("complete_") && kind !== "lease_lost").reduce((sum, [, n]) => sum + n, 0);
      const dedupHits = tally.of(tool, "replay") + tally.of(tool, "in_progress") + tally.of(tool, "refused");
      expect(figures).toMatchObject({
        begins,
        dedupHits,
        dedupRate: dedupHits / begins,
        executions: tally.of(tool, "execute") + tally.of(tool, "verify"),
        replays: tally.of(tool, "replay"),
        inProgress: tally.of(tool, "in_progress"),
        refused: tally.of(tool, "refused"),
        conflicts: tally.of(tool, "conflict"),
        completes: { succeeded: tally.of(tool, "complete_succeeded"), failed: tally.of(tool, "complete_failed"), released: tally.of(tool, "complete_released") },
        failures: tally.of(tool, "complete_failed") + tally.of(tool, "complete_released"),
        leaseLost: tally.of(tool, "lease_lost"),
      });
      expect(figures.meanBeginLatencyMs).toBeGreaterThan(0);
    }
    expect(dedup.tools.map((t) => t.tool).sort()).toEqual(Object.values(tools).sort());
    expect(dedup.total.begins).toBe(dedup.tools.reduce((sum, t) => sum + t.begins, 0));
    // Sanity of the script itself: it produced each kind it meant to.
    expect(tally.of(tools.pay, "replay")).toBe(6);
    expect(tally.of(tools.pay, "in_progress")).toBe(2);
    expect(tally.of(tools.loopy, "blocked")).toBeGreaterThanOrEqual(1);
    expect(dedup.tools.find((t) => t.tool === tools.loopy)!.blocked).toBe(tally.of(tools.loopy, "blocked"));
    expect(tally.of(tools.mail, "refused")).toBe(2);
    expect(tally.of(tools.mail, "conflict")).toBe(1);
    expect(tally.of(tools.slow, "execute")).toBe(2);
  });

  it("timeseries: per tool and decision, by minute and by hour, buckets aligned", async () => {
    for (const bucket of ["minute", "hour"] as const) {
      const series = await insights.timeseries({ bucket, from: new Date(started - 60_000).toISOString() });
      expect(series.bucketSeconds).toBe(bucket === "minute" ? 60 : 3_600);
      expect(Date.parse(series.from) % (series.bucketSeconds * 1000)).toBe(0);
      for (const [tool, kinds] of tally.byTool) {
        for (const [kind, count] of kinds) {
          const type = kind === "lease_lost" ? "lease_lost" : kind.startsWith("complete_") ? "complete" : "begin";
          const decision = type === "complete" ? kind.slice("complete_".length) : kind;
          const line = series.series.find((s) => s.tool === tool && s.type === type && s.decision === decision);
          expect(line, `${tool} ${kind}`).toBeDefined();
          expect(line!.total).toBe(count);
          expect(line!.points.reduce((sum, p) => sum + p.count, 0)).toBe(count);
          for (const point of line!.points) expect(Date.parse(point.at) % (series.bucketSeconds * 1000)).toBe(0);
        }
      }
    }
    const one = await insights.timeseries({ bucket: "hour", tool: tools.mail });
    expect(new Set(one.series.map((s) => s.tool))).toEqual(new Set([tools.mail]));
    expect(one.tool).toBe(tools.mail);
  });

  it("top runs: by duplicate pressure, from the recent events", async () => {
    const top = await insights.topRuns({ limit: 3 });
    const begins = (run: string) => tally.beginsByRun.get(run) ?? 0;
    const expected = [...tally.dedupByRun].sort((a, b) => b[1] - a[1] || begins(b[0]) - begins(a[0]) || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
    expect(top.runs.map((r) => [r.runId, r.dedupHits])).toEqual(expected);
    expect(top.runs[0]!.begins).toBe(6);
    expect(top.runs[0]!.dedupRate).toBeCloseTo(5 / 6);
    expect(top.sampled).toBe(false);
  });

  it("refuses bad ranges and buckets (400), an unknown project (404) and a missing token (401)", async () => {
    const now = Date.now();
    const cases: [string, Record<string, string>][] = [
      ["/stats/timeseries", { bucket: "week" }],
      ["/stats/timeseries", { from: new Date(now).toISOString(), to: new Date(now - 60_000).toISOString() }],
      ["/stats/timeseries", { bucket: "minute", from: new Date(now - 2 * 86_400_000).toISOString() }],
      ["/stats/timeseries", { from: "yesterday" }],
      ["/stats/timeseries", { color: "red" }],
      ["/stats/top-runs", { from: new Date(now - 2 * 86_400_000).toISOString() }],
      ["/stats/top-runs", { limit: "0" }],
      ["/stats/dedup", { to: "2026-13-01T00:00:00Z" }],
    ];
    for (const [path, query] of cases) {
      const { status, body } = await insights.expectError(path, query);
      expect(status, `${path} ${JSON.stringify(query)}`).toBe(400);
      expect(body.error.code).toBe("invalid_input");
    }
    expect((await new InsightsClient(server.baseUrl, "proj_nope").expectError("/stats/dedup")).status).toBe(404);
    expect((await insights.expectError("/stats/timeseries", {}, null)).status).toBe(401);
  });

  it("documents the statistics and storms routes in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const path of ["stats/timeseries", "stats/dedup", "stats/top-runs", "stats/storms", "storms"]) {
      expect(doc.paths[`/api/v1/admin/projects/{projectId}/${path}`], path).toHaveProperty("get");
    }
  });
});
