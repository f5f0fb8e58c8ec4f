import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { InsightsClient } from "../helpers/insights-client";
import { startOtlpReceiver } from "../helpers/otlp-receiver";
import { sleep } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { burstUntilStorm, pacedReplays, prepareStormTool, waitFor } from "../helpers/storm-scenario";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { FAST_ALERTS_ENV, subscribeStormWebhook } from "../helpers/alert-setup";
import { OPERATOR_ENV } from "../helpers/operator-client";

const METRICS_TOKEN = "metrics-token-for-storm-tests-0123";

/**
 * Retry storms end to end on one server: replays over HTTP, the detector on its background loop,
 * incidents through the operator API, the webhook, the counter and the span event.
 */
describe.each(PROVIDERS)("%s: retry storms", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let admin: AdminClient;
  let insights: InsightsClient;
  let webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url);
    webhook = await startWebhookReceiver("ok");
    otlp = await startOtlpReceiver();
    server = await startServer(db.url, {
      IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      IDEMGATE_METRICS_TOKEN: METRICS_TOKEN,
      IDEMGATE_STORM_INTERVAL_MS: "200",
      ...OPERATOR_ENV,
      ...FAST_ALERTS_ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    });
    client = new TestClient(server.baseUrl, project.apiKey);
    admin = new AdminClient(server.baseUrl, project.projectId);
    await subscribeStormWebhook(server.baseUrl, project.projectId, webhook.url);
    insights = new InsightsClient(server.baseUrl, project.projectId);
  });

  afterAll(async () => {
    await server?.stop();
    await webhook?.close();
    await otlp?.close();
    await db?.drop();
  });

  it("a burst of replays over a quiet baseline opens exactly one incident and closes it after; a steady high rate opens none", async () => {
    const [stormy, steady] = await Promise.all([prepareStormTool(admin, client, "charge"), prepareStormTool(admin, client, "lookup")]);

    const stormScenario = async () => {
      // Quiet baseline: about 2 dedup hits a second, long enough for three whole windows of history.
      await pacedReplays([client], stormy, 2, 4_500);
      // The burst: 80 replays in well under a second; run 0 (and its key) drives the most.
      await burstUntilStorm([client], stormy, [35, 20, 15, 10], async () => (await insights.storms()).storms.some((s) => s.tool === stormy.tool));
      const open = await waitFor(async () => (await insights.openStorms()).storms.find((s) => s.tool === stormy.tool), 60_000, "the open storm");
      expect(open).toMatchObject({ status: "open", windowSeconds: 1, endedAt: null });
      expect((await insights.storms("closed")).storms.map((s) => s.tool)).not.toContain(stormy.tool);
      // Nothing more: three quiet windows later it closes.
      return waitFor(async () => (await insights.storms("closed")).storms.find((s) => s.tool === stormy.tool), 60_000, "the closed storm");
    };
    // 25 replays a second all along: above minHits, but it is this tool's normal.
    const [closed] = await Promise.all([stormScenario(), pacedReplays([client], steady, 25, 9_000)]);

    const all = (await insights.storms()).storms;
    expect(all.map((s) => s.tool)).toEqual([stormy.tool]);
    expect(closed).toMatchObject({ tool: stormy.tool, status: "closed", windowSeconds: 1, runsInvolved: 4, quietWindows: 3 });
    expect(closed.peakHits).toBeGreaterThanOrEqual(20);
    // The burst may straddle two windows: the incident counts from the window it opened in.
    expect(closed.totalHits).toBeGreaterThanOrEqual(closed.peakHits);
    // The baseline is the quiet rate (≈ 2 a second, up to 4 where a loaded machine bunched the
    // pacing), plus any part of the burst that fell into the window before the opening one: at most
    // 80 − totalHits hits, averaged over at least three windows of history. Never the whole burst.
    expect(closed.baseline).toBeLessThanOrEqual(4 + Math.max(0, 80 - closed.totalHits) / 3);
    expect(closed.threshold).toBe(Math.max(20, 5 * closed.baseline));
    expect(closed.topKeys[0]!.key).toBe(stormy.keys[0]);
    expect(closed.topRuns[0]!.runId).toBe(stormy.requests[0]!.runId);
    expect(Date.parse(closed.endedAt!)).toBeGreaterThan(Date.parse(closed.startedAt));
    expect((await insights.storms("open")).storms).toEqual([]);
    expect((await insights.openStorms()).storms).toEqual([]);

    // The webhook got the opening and the closing, once each, with the incident.
    // A delivery that timed out on a starved machine is retried with backoff: the budget allows a few.
    await waitFor(async () => webhook.hooks.length >= 2, 180_000, "two webhook deliveries");
    await sleep(500);
    expect(webhook.hooks.map((h) => h.type)).toEqual(["storm.opened", "storm.closed"]);
    expect(webhook.hooks[0]).toMatchObject({ header: "storm.opened", body: { data: { id: closed.id, tool: stormy.tool, status: "open" } } });
    expect(webhook.hooks[1]).toMatchObject({ body: { data: { id: closed.id, status: "closed" } } });

    // The counter counted it once, and the span event carries the incident.
    const metrics = await (await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const counted = new RegExp(`^idemgate_storms_opened(?:_total)?\\{[^}]*tool="${stormy.tool}"[^}]*\\} (\\d+)`, "m").exec(metrics);
    expect(counted?.[1], metrics.split("\n").filter((l) => l.includes("storm")).join("\n")).toBe("1");
    const [span] = await otlp.waitFor((s) => s.name === "idemgate.storm" && s.events.some((e) => e.name === "idemgate.storm.opened"));
    expect(span!.attributes).toMatchObject({ "gen_ai.tool.name": stormy.tool, "idemgate.storm.id": closed.id });
  }, 480_000); // under a CPU hog, bursts, closes and delivery retries each take their generous budget

  it("lists storms of the project only, and refuses bad input", async () => {
    expect((await insights.expectError("/storms", { status: "ongoing" })).status).toBe(400);
    expect((await insights.expectError("/storms", {}, null)).status).toBe(401);
    const other = new InsightsClient(server.baseUrl, "proj_does_not_exist");
    expect((await other.expectError("/storms")).status).toBe(404);
    const otherProject = await createTestProject(db.url, "other");
    expect((await new InsightsClient(server.baseUrl, otherProject.projectId).storms()).storms).toEqual([]);
  });
});
