import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DedupResponseSchema, TimeseriesResponseSchema, TopRunsResponseSchema } from "../../lib/contract/stats";
import { StormDetailResponseSchema, StormListResponseSchema } from "../../lib/contract/storms";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { PROVIDERS } from "../helpers/databases";
import { InsightsClient } from "../helpers/insights-client";
import { OperatorClient, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { burstUntilStorm, pacedReplays, prepareStormTool, waitFor } from "../helpers/storm-scenario";
import { type TwoProjects, startTwoProjects } from "../helpers/two-projects";

/**
 * The dashboard's statistics and storms through the operator API: any member of the project reads
 * them with a session (a viewer included), with the same answers as the admin API; nobody else does.
 */
describe.each(PROVIDERS)("%s: statistics and storms for every member", (provider) => {
  let world: TwoProjects;
  let adminA: InsightsClient;
  let viewer: OperatorClient;
  let outsider: OperatorClient;
  const toolA = uniqueTool("mailA");
  const toolB = uniqueTool("mailB");
  const reads = (projectId: string) => ({
    dedup: `/api/v1/operator/projects/${projectId}/stats/dedup`,
    timeseries: `/api/v1/operator/projects/${projectId}/stats/timeseries?bucket=minute`,
    topRuns: `/api/v1/operator/projects/${projectId}/stats/top-runs`,
    openStorms: `/api/v1/operator/projects/${projectId}/stats/storms`,
    storms: `/api/v1/operator/projects/${projectId}/storms`,
  });

  beforeAll(async () => {
    world = await startTwoProjects(provider, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, IDEMGATE_STORM_INTERVAL_MS: "200" });
    adminA = new InsightsClient(world.server.baseUrl, world.projectA);
    viewer = await createOperator(world.root, world.projectA, "viewer");
    outsider = await createOperator(world.root, world.projectB, "admin", "outsider");

    // A: three runs execute once and are replayed once each; B: one execute of its own tool.
    for (let i = 0; i < 3; i++) {
      const request = { tool: toolA, runId: uniqueRun(`a${i}`), stepId: "notify", args: { to: i } };
      await runOnce(world.agentA, request);
      expectDecision(await world.agentA.begin(request), "replay");
    }
    await runOnce(world.agentB, { tool: toolB, runId: uniqueRun("b"), stepId: "notify" });
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("a viewer reads the figures, series and top runs of their project, the same answers the admin API gives", async () => {
    const dedup = await viewer.call(DedupResponseSchema, "GET", reads(world.projectA).dedup);
    expect(dedup.tools.map((t) => t.tool)).toEqual([toolA]);
    expect(dedup.tools[0]).toMatchObject({ begins: 6, executions: 3, replays: 3, dedupHits: 3, dedupRate: 0.5 });
    expect(dedup).toEqual(await adminA.dedup({ from: dedup.from, to: dedup.to }));

    const series = await viewer.call(TimeseriesResponseSchema, "GET", reads(world.projectA).timeseries);
    const replays = series.series.find((s) => s.tool === toolA && s.type === "begin" && s.decision === "replay");
    expect(replays?.total).toBe(3);
    expect(series.series.map((s) => s.tool)).not.toContain(toolB);
    expect(series).toEqual(await adminA.timeseries({ bucket: "minute", from: series.from, to: series.to }));

    const runs = await viewer.call(TopRunsResponseSchema, "GET", reads(world.projectA).topRuns);
    expect(runs.runs).toHaveLength(3);
    expect(runs.runs.every((r) => r.begins === 2 && r.dedupHits === 1)).toBe(true);

    expect((await viewer.call(StormListResponseSchema, "GET", reads(world.projectA).storms)).storms).toEqual([]);
    expect((await viewer.call(StormListResponseSchema, "GET", reads(world.projectA).openStorms)).storms).toEqual([]);
  });

  it("without a session, with an agent key, or as another project's member: 401, 401, 404 — and a project sees only its own figures", async () => {
    const anonymous = new OperatorClient(world.server.baseUrl, null);
    for (const url of Object.values(reads(world.projectA))) {
      expect((await anonymous.expectError("GET", url)).status, url).toBe(401);
      expect((await world.agentA.expectError("GET", url)).status, `${url} with an API key`).toBe(401);
      expect(await outsider.expectError("GET", url), `${url} by B's admin`).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
      expect((await viewer.expectError("GET", url.replace(world.projectA, world.projectB))).status, `B's ${url} by A's viewer`).toBe(404);
    }
    const ofB = await outsider.call(DedupResponseSchema, "GET", reads(world.projectB).dedup);
    expect(ofB.tools.map((t) => t.tool)).toEqual([toolB]);
    expect((await viewer.expectError("GET", `/api/v1/operator/projects/${world.projectA}/storms/storm_unknown`)).status).toBe(404);
  });

  it("a storm is listed for a viewer, and its detail charts the rate against the baseline; other projects cannot read it", async () => {
    const stormy = await prepareStormTool(new AdminClient(world.server.baseUrl, world.projectA), world.agentA, "charge");
    // A quiet baseline (~2 hits a second), then a burst far above it.
    await pacedReplays([world.agentA], stormy, 2, 4_500);
    await burstUntilStorm([world.agentA], stormy, [35, 20, 15, 10], async () => (await adminA.storms()).storms.some((s) => s.tool === stormy.tool));
    const listed = await waitFor(
      async () => (await viewer.call(StormListResponseSchema, "GET", reads(world.projectA).openStorms)).storms.find((s) => s.tool === stormy.tool),
      60_000,
      "the open storm, as the viewer sees it",
    );
    // Quiet from here: three windows under the threshold close it, and the incident stops changing.
    const closed = await waitFor(
      async () => (await viewer.call(StormListResponseSchema, "GET", `${reads(world.projectA).storms}?status=closed`)).storms.find((s) => s.id === listed.id),
      60_000,
      "the storm to close",
    );

    const detailUrl = `/api/v1/operator/projects/${world.projectA}/storms/${closed.id}`;
    const detail = await viewer.call(StormDetailResponseSchema, "GET", detailUrl);
    expect(detail.storm).toEqual(closed);
    expect(detail.rate.bucketSeconds).toBe(1);
    const startedAt = Date.parse(closed.startedAt);
    const endedAt = Date.parse(closed.endedAt!);
    // The ten baseline windows before it, every bucket present and one second apart.
    expect(Date.parse(detail.rate.from)).toBe(startedAt - 10_000);
    const at = detail.rate.points.map((p) => Date.parse(p.at));
    expect(at[0]).toBe(startedAt - 10_000);
    expect(at.every((t, i) => i === 0 || t - at[i - 1]! === 1_000)).toBe(true);
    expect(at[at.length - 1]).toBeGreaterThanOrEqual(endedAt - 1_000);
    // The ledger holds at least what the detector counted (events can land after it judged a window).
    const during = detail.rate.points.filter((p) => Date.parse(p.at) >= startedAt && Date.parse(p.at) < endedAt);
    expect(during.reduce((sum, p) => sum + p.hits, 0)).toBeGreaterThanOrEqual(closed.totalHits);
    expect(Math.max(...during.map((p) => p.hitsPerWindow))).toBeGreaterThanOrEqual(closed.peakHits);
    const before = detail.rate.points.filter((p) => Date.parse(p.at) < startedAt);
    expect(before).toHaveLength(10);
    expect(Math.max(...before.map((p) => p.hits))).toBeLessThan(closed.threshold);
    expect(detail.storm.topRuns[0]!.runId).toBe(stormy.requests[0]!.runId);
    expect(detail.storm.topKeys[0]!.key).toBe(stormy.keys[0]);

    // The admin API answers the same detail from the same service.
    const viaAdmin = await adminA.get(StormDetailResponseSchema, `/storms/${closed.id}`);
    expect(viaAdmin.storm).toEqual(detail.storm);
    expect(viaAdmin.rate.points.slice(0, 10)).toEqual(detail.rate.points.slice(0, 10));

    // Another project's member, or A's storm through B's path: not found, never forbidden.
    expect((await outsider.expectError("GET", detailUrl)).status).toBe(404);
    expect((await outsider.expectError("GET", detailUrl.replace(world.projectA, world.projectB))).status).toBe(404);
    expect((await new OperatorClient(world.server.baseUrl, null).expectError("GET", detailUrl)).status).toBe(401);
  });
});
