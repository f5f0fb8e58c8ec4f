import { afterAll, beforeAll, expect, it } from "vitest";
import { AlertRuleSchema, CreatedAlertChannelSchema } from "../../lib/contract/alerts";
import { OutboundAllowlistEntrySchema } from "../../lib/contract/outbound";
import type { AdminClient } from "../helpers/admin-client";
import { startAlertReceivers } from "../helpers/alert-receivers";
import { ROUTING_KEY, alertClients, alertServerEnv } from "../helpers/alert-setup";
import type { TestClient } from "../helpers/client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import type { InsightsClient } from "../helpers/insights-client";
import type { OperatorClient } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { describeProvidersAtOnce } from "../helpers/providers-at-once";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";

const PUBLIC_URL = "https://idemgate.example.com";
const TOOLS = 20;
/**
 * Eight-second windows, so twenty tools' bursts sent at once on a loaded machine land in one window
 * each (or in the window straddling a boundary); four dedup hits open a storm, by the baseline rule
 * or, in the gate's first windows, by the absolute one (the burst is all replays).
 */
const STORM_POLICY = { storm: { windowSeconds: 8, minHits: 4, factor: 5, absoluteMinHits: 4, absoluteDedupRate: 0.5 }, loop: { enabled: false } };
const REPLAYS_PER_TOOL = 8;

/**
 * Issue #44's burst: twenty tools storming at once through the real gate (replays of completed
 * calls, the detector opening each storm), told to Slack, a signed webhook and PagerDuty by one
 * storm_opened rule. Slack and the webhook each get the twenty openings as one grouped message,
 * and the Slack receiver, which answers 429 to a second post within a second as Slack does, never
 * has to; PagerDuty gets one incident per storm, each resolved when its storm closes. The file is
 * mostly waiting (windows, the group wait, three quiet windows to close): both providers at once.
 */
describeProvidersAtOnce("twenty storms at once", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let admin: AdminClient;
  let insights: InsightsClient;
  let ops: OperatorClient;
  let projectId: string;
  let rx: Awaited<ReturnType<typeof startAlertReceivers>>;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url, "storm burst");
    projectId = project.projectId;
    rx = await startAlertReceivers({ routingKey: ROUTING_KEY, linkBase: PUBLIC_URL, slackPerSecond: true });
    server = await startServer(
      db.url,
      alertServerEnv({
        IDEMGATE_PUBLIC_URL: PUBLIC_URL,
        // Long enough that twenty storms opened by a loaded machine's detector passes (a straggler's burst
        // sent again included) fire "together", short of their closing (three quiet 8 s windows).
        IDEMGATE_ALERT_GROUP_WAIT_MS: "15000",
      }),
    );
    ({ client, admin, insights, ops } = await alertClients(server.baseUrl, project));
    await ops.call(OutboundAllowlistEntrySchema, "POST", ops.p(projectId, "/outbound-allowlist"), { pattern: `127.0.0.1:${rx.port}` });
  });

  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it("twenty storms opened together: one grouped message per Slack and webhook channel, no 429, one PagerDuty incident each, every one resolved", async () => {
    const alerts = (rest: string) => ops.p(projectId, `/alerts${rest}`);
    const slack = (await ops.call(CreatedAlertChannelSchema, "POST", alerts("/channels"), { kind: "slack", name: "storms", url: rx.url("/slack/burst") })).id;
    const pd = (await ops.call(CreatedAlertChannelSchema, "POST", alerts("/channels"), { kind: "pagerduty", name: "storms pd", routingKey: ROUTING_KEY, url: rx.url("/pagerduty/burst") })).id;
    const hook = await ops.call(CreatedAlertChannelSchema, "POST", alerts("/channels"), { kind: "webhook", name: "storms hook", url: rx.url("/hooks/burst") });
    rx.setSecret("/hooks/burst", hook.signingSecret!);
    await ops.call(AlertRuleSchema, "POST", alerts("/rules"), { condition: "storm_opened", channelIds: [slack, pd, hook.id] });

    // Twenty tools, one completed call each: beginning it again is a replay (a dedup hit).
    const tools = await Promise.all(
      Array.from({ length: TOOLS }, async (_, i) => {
        const tool = uniqueTool(`burst${i}`);
        await admin.put(tool, STORM_POLICY, "test: twenty storms at once");
        const request = { tool, runId: uniqueRun(`burst${i}`), stepId: "act" };
        await runOnce(client, request);
        return { tool, request };
      }),
    );
    // All of them at once: eight replays each, four senders per tool.
    const burst = (targets: typeof tools) =>
      Promise.all(
        targets.flatMap(({ request }) =>
          Array.from({ length: 4 }, async () => {
            for (let i = 0; i < REPLAYS_PER_TOOL / 4; i++) expectDecision(await client.begin(request), "replay");
          }),
        ),
      );
    await burst(tools);
    const names = new Set(tools.map((t) => t.tool));
    const stormsNow = async () => (await insights.storms()).storms.filter((s) => names.has(s.tool));
    // A loaded machine may send one tool's burst too slowly to put four replays into one window: once
    // the detector has judged the burst's windows (two windows on), those tools' bursts go again, once.
    await waitFor(async () => (await stormsNow()).length === TOOLS, 16_000, "twenty storms from one burst").catch(async () => {
      const opened = new Set((await stormsNow()).map((s) => s.tool));
      await burst(tools.filter((t) => !opened.has(t.tool)));
    });
    let seen = 0;
    const storms = await waitFor(
      async () => {
        const ours = await stormsNow();
        seen = ours.length;
        return ours.length === TOOLS ? ours : null;
      },
      90_000,
      "twenty storms",
    ).catch((error: Error) => {
      throw new Error(`${error.message} (${seen} opened)`);
    });
    const keys = storms.map((s) => `idemgate:${projectId}:storm:${s.id}`);
    // Every storm closes (three quiet windows) and is resolved where it was told.
    await waitFor(async () => keys.every((key) => rx.incidents.get(key)?.status === "resolved"), 120_000, "twenty PagerDuty incidents resolved");
    const closedIn = (text: string) => tools.filter((t) => text.includes(`Retry storm closed on ${t.tool}`)).length;
    await waitFor(async () => rx.slackAt("/slack/burst").reduce((n, m) => n + closedIn(m.text), 0) === TOOLS, 120_000, "twenty closes in Slack");
    await waitFor(async () => rx.hookAlerts("/hooks/burst").filter((h) => h.type === "storm.closed").length === TOOLS, 120_000, "twenty closes by webhook");

    // Slack: the twenty openings in one message, listing each; no post refused for pace; nothing unescaped.
    const opensIn = (text: string) => tools.filter((t) => text.includes(`Retry storm opened on ${t.tool}`)).length;
    const slackWithOpens = rx.slackAt("/slack/burst").filter((m) => opensIn(m.text) > 0);
    expect(slackWithOpens.map((m) => opensIn(m.text))).toEqual([TOOLS]);
    expect(slackWithOpens[0]!.text.split("\n")[0]).toContain(`${TOOLS} alerts in project`);
    expect(rx.tooFast).toEqual([]);
    expect(rx.slackViolations).toEqual([]);

    // The webhook: the twenty openings in one signed request (alert.group), each alert once.
    const hookRequests = rx.hooks("/hooks/burst").filter((h) => h.type === "alert.group" || h.type === "storm.opened");
    const opensPerRequest = hookRequests.map((h) =>
      h.type === "alert.group" ? (h.body.data.alerts as { type: string }[]).filter((a) => a.type === "storm.opened").length : 1,
    );
    expect(opensPerRequest.filter((n) => n > 0)).toEqual([TOOLS]);
    const opened = rx.hookAlerts("/hooks/burst").filter((h) => h.type === "storm.opened");
    expect(new Set(opened.map((h) => String(h.body.data.tool)))).toEqual(names);
    expect(new Set(opened.map((h) => h.id)).size).toBe(TOOLS);
    expect(rx.rejected).toEqual([]);

    // PagerDuty: one incident per storm (its own dedup_key), opened once and resolved once.
    for (const key of keys) expect(rx.pagerDuty.filter((e) => e.dedup_key === key).map((e) => e.event_action), key).toEqual(["trigger", "resolve"]);
    expect(keys.map((key) => rx.incidents.get(key)?.pages)).toEqual(Array(TOOLS).fill(1));
    expect(rx.strayResolves).toEqual([]);
  }, 300_000);
});
