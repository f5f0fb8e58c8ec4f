import { afterAll, beforeAll, expect, it } from "vitest";
import { AlertDeliveriesSchema, AlertDeliverySchema, AlertRuleSchema, AlertsSchema, CreatedAlertChannelSchema } from "../../lib/contract/alerts";
import type { BeginRequest } from "../../lib/contract/v1";
import { OutboundAllowlistEntrySchema } from "../../lib/contract/outbound";
import { RunBudgetSchema } from "../../lib/contract/budgets";
import { openDb } from "../../lib/store/prisma/client";
import type { AdminClient } from "../helpers/admin-client";
import { startAlertReceivers } from "../helpers/alert-receivers";
import { ROUTING_KEY, SECRETS_KEY, alertClients, alertServerEnv, alertWorkerOn } from "../helpers/alert-setup";
import type { TestClient } from "../helpers/client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import type { InsightsClient } from "../helpers/insights-client";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { describeProvidersAtOnce } from "../helpers/providers-at-once";
import { type TestServer, startServer } from "../helpers/server";
import { burstReplays, pacedReplays, prepareStormTool, waitFor } from "../helpers/storm-scenario";

const PUBLIC_URL = "https://idemgate.example.com";

/**
 * Alerts about incidents, not ledger events (issue #44), against receivers that check each
 * service's contract (Slack's pace and escaping, PagerDuty Events v2, Standard Webhooks verified by
 * the official library): a run blocked again and again pages once and resolves once; a storm told
 * to a channel is resolved there without a storm_closed rule; Slack is sent at its pace; a hanging
 * receiver holds up only itself; Retry-After is heard; agent text reaches Slack escaped.
 */
describeProvidersAtOnce("alerts about incidents", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let admin: AdminClient;
  let insights: InsightsClient;
  let ops: OperatorClient;
  let projectId: string;
  let rx: Awaited<ReturnType<typeof startAlertReceivers>>;
  let prisma: ReturnType<typeof openDb>;
  const env = () =>
    alertServerEnv({
      IDEMGATE_ALERT_TIMEOUT_MS: "10000",
      IDEMGATE_ALERT_LEASE_MS: "12000",
      IDEMGATE_PUBLIC_URL: PUBLIC_URL,
      // Slack's group wait: long enough that twenty incidents raised at once on a loaded machine fire "together".
      IDEMGATE_ALERT_GROUP_WAIT_MS: "3000",
    });
  const alerts = (rest = "") => ops.p(projectId, `/alerts${rest}`);
  const deliveries = async () => (await ops.call(AlertDeliveriesSchema, "GET", alerts("/deliveries"))).deliveries;
  const addChannel = async (body: Record<string, unknown>) => ops.call(CreatedAlertChannelSchema, "POST", alerts("/channels"), body);
  const hookChannel = async (name: string, path: string) => {
    const hook = await addChannel({ kind: "webhook", name, url: rx.url(path) });
    rx.setSecret(path, hook.signingSecret!);
    return hook.id;
  };
  const addRule = (condition: string, channelIds: string[]) => ops.call(AlertRuleSchema, "POST", alerts("/rules"), { condition, channelIds });
  const pdFor = (key: string) => rx.pagerDuty.filter((e) => e.dedup_key === key).map((e) => e.event_action);
  const slackAt = (path: string) => rx.slackAt(path).map((m) => m.text.split("\n")[0]!);
  /** Every signal turned into deliveries and every delivery of these channels settled: nothing more is coming. */
  const quiet = (what: string, channelIds: string[], count: number) =>
    waitFor(
      async () => {
        if ((await prisma.alertSignal.count({ where: { projectId, processedAt: null } })) > 0) return null;
        const ours = (await deliveries()).filter((d) => channelIds.includes(d.channelId));
        return ours.length >= count && ours.every((d) => d.status !== "pending") ? ours : null;
      },
      90_000,
      what,
    );

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url, "incidents");
    projectId = project.projectId;
    rx = await startAlertReceivers({ routingKey: ROUTING_KEY, linkBase: PUBLIC_URL, slackPerSecond: true });
    server = await startServer(db.url, env());
    ({ client, admin, insights, ops } = await alertClients(server.baseUrl, project));
    await ops.call(OutboundAllowlistEntrySchema, "POST", ops.p(projectId, "/outbound-allowlist"), { pattern: `127.0.0.1:${rx.port}` });
    prisma = openDb({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it("a loop blocked five times: one trigger per channel, then updates of the same incident as it grows; once the run moves on, one resolve per channel", async () => {
    const slack = (await addChannel({ kind: "slack", name: "loops", url: rx.url("/slack/loops") })).id;
    const pd = (await addChannel({ kind: "pagerduty", name: "loops pd", routingKey: ROUTING_KEY, url: rx.url("/pagerduty/loops") })).id;
    const hook = await hookChannel("loops hook", "/hooks/loops");
    await addRule("loop_blocked", [slack, pd, hook]);

    const looping = uniqueRun("loop");
    const a = { tool: uniqueTool("search"), runId: looping, stepId: "search", args: { q: "refunds" } };
    const b = { tool: uniqueTool("fetch"), runId: looping, stepId: "fetch", args: { url: "https://kb/refunds" } };
    await runOnce(client, a);
    await runOnce(client, b);
    // The agent alternates search and fetch until the loop detector blocks it (three repeats of the pair)...
    let blocked: BeginRequest | null = null;
    let step = 0;
    for (; step < 12 && blocked === null; step++) {
      const request = step % 2 === 0 ? a : b;
      if ((await client.begin(request)).decision === "blocked") blocked = request;
    }
    expect(blocked).not.toBeNull();
    const key = `idemgate:${projectId}:loop:${looping}`;
    await waitFor(async () => rx.incidents.get(key)?.status === "triggered" && rx.hookAlerts("/hooks/loops").length === 1 && rx.slackAt("/slack/loops").length === 1, 60_000, "the loop's trigger");
    // ...and keeps going round once told: four more refusals, five in all, one incident (the run's loop) that grows.
    for (let i = 0; i < 4; i++, step++) expectDecision(await client.begin(step % 2 === 0 ? a : b), "blocked");
    const fiveTimes = "Blocked 5 times in this run so far";
    await waitFor(
      async () =>
        rx.slackAt("/slack/loops").at(-1)?.text.includes(fiveTimes) &&
        String(rx.hookAlerts("/hooks/loops").at(-1)?.body.alert.summary ?? "").includes(fiveTimes) &&
        rx.pagerDuty.filter((e) => e.dedup_key === key).at(-1)?.payload?.summary.includes(fiveTimes),
      60_000,
      "the update saying the loop was blocked five times",
    );

    // The agent moves on: a begin of the run that is not blocked.
    await runOnce(client, { tool: uniqueTool("answer"), runId: looping, stepId: "answer", args: { text: "here is what I found" } });
    await waitFor(async () => rx.incidents.get(key)?.status === "resolved", 60_000, "the loop's incident resolved");
    await quiet("every loop delivery settled", [slack, pd, hook], 9);

    // PagerDuty: one incident, paged once; its updates are triggers under the same dedup_key; one resolve, last.
    const events = pdFor(key);
    expect(events[0]).toBe("trigger");
    expect(events.slice(1, -1).every((e) => e === "trigger")).toBe(true);
    expect(events.at(-1)).toBe("resolve");
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(rx.incidents.get(key)).toEqual({ pages: 1, status: "resolved" });
    // Slack: the trigger, the updates (paced: never a 429), the resolve.
    const said = slackAt("/slack/loops");
    expect(said[0]).toContain(`Loop blocked on ${blocked!.tool}`);
    expect(said[0]).not.toContain("Updated");
    expect(said.slice(1, -1).length).toBeGreaterThanOrEqual(1);
    expect(said.slice(1, -1).every((line) => line.includes("Updated: Loop blocked on"))).toBe(true);
    expect(said.at(-1)).toContain(`Resolved: Loop blocked on`);
    expect(rx.tooFast).toEqual([]);
    const types = rx.hookAlerts("/hooks/loops").map((h) => h.type);
    expect(types[0]).toBe("alert.loop_blocked");
    expect(types.slice(1, -1).every((t) => t === "alert.loop_blocked.updated")).toBe(true);
    expect(types.at(-1)).toBe("alert.loop_blocked.resolved");
    expect(types.filter((t) => t.endsWith(".resolved"))).toHaveLength(1);
    expect(rx.strayResolves).toEqual([]);
    expect(rx.rejected).toEqual([]);
  });

  it("a budget refused four times, then raised: one trigger, one resolve", async () => {
    const slack = (await addChannel({ kind: "slack", name: "budgets", url: rx.url("/slack/budgets") })).id;
    const pd = (await addChannel({ kind: "pagerduty", name: "budgets pd", routingKey: ROUTING_KEY, url: rx.url("/pagerduty/budgets") })).id;
    await addRule("budget_exceeded", [slack, pd]);
    const tool = uniqueTool("refund");
    await admin.put(tool, { budget: { maxCallsPerRun: 1 }, loop: { enabled: false } });
    const run = uniqueRun("overrun");
    await runOnce(client, { tool, runId: run, stepId: "r1" });
    for (const step of ["r2", "r3", "r4", "r5"]) expectDecision(await client.begin({ tool, runId: run, stepId: step }), "blocked");
    const key = `idemgate:${projectId}:budget:${run}`;
    await quiet("the refusals fanned out", [slack, pd], 2);
    await ops.call(RunBudgetSchema, "POST", ops.p(projectId, `/runs/${run}/budget`), { maxCallsPerRun: 10, reason: "approved by the customer" });
    await waitFor(async () => rx.incidents.get(key)?.status === "resolved", 60_000, "the budget incident resolved");
    await quiet("every budget delivery settled", [slack, pd], 4);

    // One incident: one trigger (any update of it under the same dedup_key: the count grew after it went out), one resolve.
    const events = pdFor(key);
    expect(events[0]).toBe("trigger");
    expect(events.filter((e) => e === "resolve")).toEqual(["resolve"]);
    expect(events.at(-1)).toBe("resolve");
    expect(rx.incidents.get(key)).toEqual({ pages: 1, status: "resolved" });
    const said = slackAt("/slack/budgets");
    expect(said[0]).toContain(`Run ${run} exceeded its budget on ${tool}`);
    expect(said.slice(1, -1).every((line) => line.includes(`Updated: Run ${run} exceeded its budget`))).toBe(true);
    expect(said.at(-1)).toContain(`Resolved: Run ${run} exceeded its budget`);
    // The last word before the resolve says how many refusals the incident gathered.
    expect(rx.slackAt("/slack/budgets").at(-2)!.text).toContain("Refused 4 times in this run so far");
  });

  it("a storm told to channels with only a storm_opened rule is resolved there when it closes", async () => {
    const slack = (await addChannel({ kind: "slack", name: "storms", url: rx.url("/slack/storms") })).id;
    const pd = (await addChannel({ kind: "pagerduty", name: "storms pd", routingKey: ROUTING_KEY, url: rx.url("/pagerduty/storms") })).id;
    const hook = await hookChannel("storms hook", "/hooks/storms");
    await addRule("storm_opened", [slack, pd, hook]);

    const stormy = await prepareStormTool(admin, client, "storm");
    await pacedReplays([client], stormy, 2, 4_500);
    await burstReplays([client], stormy, [35, 20, 15, 10]);
    const closed = await waitFor(async () => (await insights.storms("closed")).storms.find((s) => s.tool === stormy.tool), 90_000, "the closed storm");
    const key = `idemgate:${projectId}:storm:${closed.id}`;
    await waitFor(async () => rx.incidents.get(key)?.status === "resolved", 60_000, "the storm's incident resolved");
    await quiet("every storm delivery settled", [slack, pd, hook], 6);

    expect(pdFor(key)).toEqual(["trigger", "resolve"]);
    // A storm that closes within the group wait may share one message with its opening: either way, opened then closed.
    const said = rx.slackAt("/slack/storms").map((m) => m.text).join("\n");
    expect(said.indexOf(`Retry storm opened on ${stormy.tool}`)).toBeGreaterThanOrEqual(0);
    expect(said.indexOf(`Retry storm closed on ${stormy.tool}`)).toBeGreaterThan(said.indexOf(`Retry storm opened on ${stormy.tool}`));
    expect(said.match(/Retry storm (opened|closed)/g)).toHaveLength(2);
    expect(rx.hookAlerts("/hooks/storms").map((h) => h.type)).toEqual(["storm.opened", "storm.closed"]);
  });

  it("a Slack channel is sent at Slack's pace: five alerts a few hundred ms apart, none refused with a 429", async () => {
    const slack = (await addChannel({ kind: "slack", name: "paced", url: rx.url("/slack/paced") })).id;
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      sent.push((await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${slack}/test`))).id);
      await sleep(300);
    }
    const done = await quiet("five paced test alerts", [slack], 5);
    expect(done.filter((d) => sent.includes(d.id)).map((d) => [d.status, d.attempts])).toEqual(Array(5).fill(["delivered", 1]));
    expect(rx.tooFast).toEqual([]);
    // What arrived within one pace went out together.
    const texts = rx.slackAt("/slack/paced").map((m) => m.text);
    expect(texts.join("\n").match(/Idemgate test alert/g)).toHaveLength(5);
  });

  it("twenty incidents that fire together reach a Slack channel as one message listing them", async () => {
    const slack = (await addChannel({ kind: "slack", name: "burst", url: rx.url("/slack/burst") })).id;
    const tool = uniqueTool("burst");
    await admin.put(tool, { budget: { maxCallsPerRun: 1 }, loop: { enabled: false } });
    await addRule("budget_exceeded", [slack]);
    const runs = Array.from({ length: 20 }, (_, i) => uniqueRun(`burst${i}`));
    await Promise.all(runs.map((runId) => runOnce(client, { tool, runId, stepId: "first" })));
    await Promise.all(runs.map(async (runId) => expectDecision(await client.begin({ tool, runId, stepId: "second" }), "blocked")));
    await quiet("the twenty refusals delivered", [slack], 20);
    const messages = rx.slackAt("/slack/burst");
    expect(messages).toHaveLength(1);
    expect(messages[0]!.text.split("\n")[0]).toContain("20 alerts in project");
    for (const runId of runs) expect(messages[0]!.text).toContain(`Run ${runId} exceeded its budget on ${tool}`);
    expect(rx.tooFast).toEqual([]);
    expect(rx.slackViolations).toEqual([]);
  });

  it("a hanging receiver beside a healthy one: the healthy channel's alert arrives while the hanging attempt is still open", async () => {
    const hanging = await hookChannel("hanging", "/hooks/hanging");
    const healthy = await hookChannel("healthy", "/hooks/healthy");
    rx.setMode("/hooks/hanging", { kind: "hang", times: 1_000 });
    try {
      const stuck = await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${hanging}/test`));
      await waitFor(async () => rx.requests("/hooks/hanging").length >= 1, 30_000, "the hanging delivery in flight");
      await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${healthy}/test`));
      await waitFor(async () => rx.hookAlerts("/hooks/healthy").length === 1, 30_000, "the healthy delivery");
      // Not a clock guess: the healthy alert arrived while the hanging one's first attempt was still
      // open (nothing logged for it yet; it ends only at the 10 s delivery timeout).
      expect((await deliveries()).find((d) => d.id === stuck.id)).toMatchObject({ status: "pending", log: [] });
    } finally {
      rx.setMode("/hooks/hanging", { kind: "ok" });
    }
  });

  it("a 429 with Retry-After: 20 is retried after 20 s, not on the gate's own backoff", async () => {
    const busy = await hookChannel("busy", "/hooks/busy");
    rx.setMode("/hooks/busy", { kind: "busy", times: 1, retryAfterSeconds: 20 });
    const test = await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${busy}/test`));
    // The 429 is logged and the retry is booked 20 s after it, as the receiver asked (the gate's own backoff here: 200 ms).
    const waiting = await waitFor(async () => (await deliveries()).find((d) => d.id === test.id && d.log.length >= 1), 60_000, "the 429");
    expect(waiting).toMatchObject({ status: "pending", attempts: 1, lastCode: 429 });
    expect(waiting.log.map((l) => [l.outcome, l.statusCode])).toEqual([["retry", 429]]);
    expect(Date.parse(waiting.nextAttemptAt!) - Date.parse(waiting.log[0]!.at)).toBe(20_000);
    expect(rx.requests("/hooks/busy")).toHaveLength(1);
    // Rather than 20 s of wall clock: a worker whose clock is 21 s on (an injected clock, as the timed
    // rules' test uses) finds it due and sends it, under the same webhook-id.
    await alertWorkerOn(prisma, SECRETS_KEY, () => Date.now() + 21_000).deliverDue();
    const done = (await deliveries()).find((d) => d.id === test.id)!;
    expect(done.log.map((l) => [l.outcome, l.statusCode])).toEqual([["retry", 429], ["delivered", 204]]);
    expect(rx.requests("/hooks/busy").map((r) => r.webhookId)).toEqual([test.id, test.id]);
  });

  it("agent text reaches Slack escaped, and lease_lost names the attempt that answered late", async () => {
    const slack = (await addChannel({ kind: "slack", name: "leases", url: rx.url("/slack/leases") })).id;
    await addRule("lease_lost", [slack]);
    const charge = { tool: `${uniqueTool("kb_search")}<!channel>`, runId: uniqueRun("stale<https://evil.example|click>"), stepId: "charge" };
    const first = expectDecision(await client.begin(charge), "execute");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error: { message: "timeout", retryable: true } });
    expectDecision(await client.begin(charge), "execute");
    expect((await client.expectError("POST", `/api/v1/calls/${first.callId}/complete`, { leaseToken: first.leaseToken, outcome: "succeeded" })).status).toBe(409);
    const [message] = await waitFor(async () => (rx.slackAt("/slack/leases").length === 1 ? rx.slackAt("/slack/leases") : null), 60_000, "the lease_lost message");
    expect(message!.text).toContain("&lt;!channel&gt;");
    expect(message!.text).toContain(`Attempt 1 of call ${first.callId}`);
    expect(message!.text).toContain("lost to attempt 2");
    expect(rx.slackViolations).toEqual([]);
  });

  it("an install without a public URL says so, and adds a channel only when the admin confirms its links will not open", async () => {
    const { IDEMGATE_PUBLIC_URL: _none, ...withoutUrl } = env();
    const bare = await startServer(db.url, { ...withoutUrl, IDEMGATE_ALERT_INTERVAL_MS: "0" });
    try {
      const there = await createOperator(await OperatorClient.signIn(bare.baseUrl, ROOT.email, ROOT.password), projectId, "admin", "no-public-url");
      const path = (rest: string) => there.p(projectId, `/alerts${rest}`);
      const before = await there.call(AlertsSchema, "GET", path(""));
      expect(before.publicUrl).toBeNull();
      const refused = await there.expectError("POST", path("/channels"), { kind: "slack", name: "dead links", url: rx.url("/slack/dead") });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain("allowDeadLinks");
      expect((await there.call(AlertsSchema, "GET", path(""))).channels).toHaveLength(before.channels.length);
      const added = await there.call(CreatedAlertChannelSchema, "POST", path("/channels"), { kind: "slack", name: "dead links", url: rx.url("/slack/dead"), allowDeadLinks: true });
      expect(added.name).toBe("dead links");
    } finally {
      await bare.stop();
    }
    expect((await ops.call(AlertsSchema, "GET", alerts())).publicUrl).toBe(PUBLIC_URL);
  });
});
