import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { InsightsClient } from "../helpers/insights-client";
import { expectDecision } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { burstReplays, pacedReplays, prepareStormTool, waitFor } from "../helpers/storm-scenario";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

/**
 * A webhook receiver that accepts connections and never answers: every delivery times out and is
 * retried, and meanwhile decisions and the detector go on as if there were no webhook. (Not about
 * the database: SQLite only.)
 */
describe("a failing storm webhook", () => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let admin: AdminClient;
  let insights: InsightsClient;
  let webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url);
    webhook = await startWebhookReceiver("hang");
    server = await startServer(db.url, {
      IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      IDEMGATE_STORM_INTERVAL_MS: "200",
      IDEMGATE_STORM_WEBHOOK_URL: webhook.url,
      IDEMGATE_STORM_WEBHOOK_TIMEOUT_MS: "1200",
    });
    client = new TestClient(server.baseUrl, project.apiKey);
    admin = new AdminClient(server.baseUrl, project.projectId);
    insights = new InsightsClient(server.baseUrl, project.projectId);
  });

  afterAll(async () => {
    await server?.stop();
    await webhook?.close();
    await db?.drop();
  });

  it("does not block decisions: the storm is recorded and begins answer at once while deliveries time out and retry", async () => {
    const stormy = await prepareStormTool(admin, client, "refund");
    await pacedReplays([client], stormy, 2, 4_500);
    await burstReplays([client], stormy, [30, 20, 15, 15]);
    await waitFor(async () => (await insights.openStorms()).storms.find((s) => s.tool === stormy.tool), 60_000, "the open storm");

    // The opening's delivery is hanging now (for 1.2 s per attempt); decisions go on undisturbed.
    await waitFor(async () => webhook.attempts() >= 1, 60_000, "the first delivery attempt");
    const latencies: number[] = [];
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      expectDecision(await client.begin(stormy.requests[i % stormy.requests.length]!), "replay");
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    expect(latencies.at(-1)!, `begin latencies (ms): ${latencies.map((l) => l.toFixed(1)).join(", ")}`).toBeLessThan(600);

    // Timeouts are retried with backoff: 4 attempts in all for the opening (then it is logged and dropped).
    await waitFor(async () => webhook.attempts() >= 4, 60_000, "four delivery attempts");
    await waitFor(async () => server.output().includes("storm.opened not delivered"), 60_000, "the delivery failure in the log");
    expect((await insights.storms()).storms.filter((s) => s.tool === stormy.tool)).toHaveLength(1);
  });
});
