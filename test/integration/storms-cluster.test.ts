import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { InsightsClient } from "../helpers/insights-client";
import { sleep } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { burstUntilStorm, pacedReplays, prepareStormTool, waitFor } from "../helpers/storm-scenario";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { FAST_ALERTS_ENV, subscribeStormWebhook } from "../helpers/alert-setup";
import { OPERATOR_ENV } from "../helpers/operator-client";
import { sql } from "../helpers/sql";

const METRICS_TOKEN = "metrics-token-for-cluster-tests-01";

/**
 * Scale-out: two gate instances on one Postgres, both running the detector every 50 ms over the
 * same windows. The database lets one of them open each incident; only that one counts it, and the
 * alerts outbox (both instances run its worker) delivers the webhook once per transition.
 */
describe.skipIf(!PROVIDERS.includes("postgres"))("postgres: two instances detecting storms on one database", () => {
  let db: TestDatabase;
  let servers: TestServer[] = [];
  let clients: TestClient[];
  let insights: InsightsClient;
  let admin: AdminClient;
  let webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const project = await createTestProject(db.url);
    webhook = await startWebhookReceiver("ok");
    const env = {
      IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      IDEMGATE_METRICS_TOKEN: METRICS_TOKEN,
      IDEMGATE_STORM_INTERVAL_MS: "50",
      ...OPERATOR_ENV,
      ...FAST_ALERTS_ENV,
    };
    // One after the other: both bootstrap the same operator admin (OPERATOR_ENV), which is not race-safe at first boot.
    servers = [await startServer(db.url, env)];
    servers.push(await startServer(db.url, env));
    clients = servers.map((server) => new TestClient(server.baseUrl, project.apiKey));
    insights = new InsightsClient(servers[1]!.baseUrl, project.projectId);
    admin = new AdminClient(servers[0]!.baseUrl, project.projectId);
    await subscribeStormWebhook(servers[0]!.baseUrl, project.projectId, webhook.url);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await webhook?.close();
    await db?.drop();
  });

  it("three storms on three tools, traffic spread over both instances: one incident each, opened and closed once", async () => {
    const tools = await Promise.all(["pay", "mail", "ship"].map((label) => prepareStormTool(admin, clients[0]!, label)));
    await Promise.all(
      tools.map(async (tool) => {
        await pacedReplays(clients, tool, 2, 4_500);
        // Twice the single-instance burst: three concurrent bursts must each put ≥ 20 hits into one
        // 1 s window; on a loaded machine one that came out too slow is sent again (burstUntilStorm).
        await burstUntilStorm(clients, tool, [60, 40, 30, 30], async () => (await insights.storms()).storms.some((s) => s.tool === tool.tool));
      }),
    );
    const closed = await waitFor(
      async () => {
        const storms = (await insights.storms("closed")).storms;
        return storms.length >= tools.length ? storms : null;
      },
      60_000,
      "three closed storms",
    );
    await sleep(1_000);

    const all = (await insights.storms()).storms;
    expect(all).toHaveLength(tools.length);
    expect(all.map((s) => s.tool).sort()).toEqual(tools.map((t) => t.tool).sort());
    expect(closed.every((s) => s.runsInvolved === 4)).toBe(true);

    // Each transition was delivered once, though both instances run the alert worker: one webhook call per opening and closing…
    // A delivery that timed out on a starved machine is retried with backoff: the budget allows a few.
    try {
      await waitFor(async () => webhook.hooks.length >= 2 * tools.length, 180_000, "six webhook deliveries");
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await outboxState(db.url, webhook.hooks.map((h) => `${h.type} ${String(h.body.data.tool)}`))}\n${servers.map((s, i) => `--- server ${i}\n${s.output().split("\n").filter((l) => /dbg|idemgate\]|rror/.test(l)).join("\n")}`).join("\n")}`);
    }
    await sleep(500);
    const delivered = webhook.hooks.map((h) => `${h.type} ${String(h.body.data.tool)}`).sort();
    expect(delivered).toEqual(tools.flatMap((t) => [`storm.closed ${t.tool}`, `storm.opened ${t.tool}`]).sort());

    // …and the instances' counters add up to one per storm.
    let counted = 0;
    for (const server of servers) {
      const text = await (await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      for (const match of text.matchAll(/^idemgate_storms_opened(?:_total)?\{[^}]*\} (\d+)/gm)) counted += Number(match[1]);
    }
    expect(counted).toBe(tools.length);
  }, 480_000); // under a CPU hog, bursts, closes and delivery retries each take their generous budget
});

/** The outbox as the database holds it, for a failure's message: which transition stopped where. */
async function outboxState(url: string, received: string[]): Promise<string> {
  const storms = await sql(url, "SELECT id, tool, status, started_at, ended_at, updated_at FROM storms ORDER BY started_at");
  const signals = await sql(url, "SELECT id, kind, tool, at, processed_at FROM alert_signals ORDER BY at");
  const deliveries = await sql(url, "SELECT id, signal_id, condition, action, status, attempts, lease_owner, next_attempt_at, lease_until, last_code, last_error, delivered_at FROM alert_deliveries ORDER BY created_at");
  const attempts = await sql(url, "SELECT * FROM alert_delivery_attempts ORDER BY at");
  return JSON.stringify({ received, storms, signals, deliveries, attempts }, (_, v) => (typeof v === "bigint" ? Number(v) : v), 1);
}
