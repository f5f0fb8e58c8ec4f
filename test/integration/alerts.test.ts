import { afterAll, beforeAll, expect, it } from "vitest";
import { AlertDeliveriesSchema, AlertDeliverySchema, AlertRuleSchema, AlertsSchema, CreatedAlertChannelSchema, type AlertDeliveryWire } from "../../lib/contract/alerts";
import { OutboundAllowlistEntrySchema, OutboundAllowlistSchema } from "../../lib/contract/outbound";
import type { AdminClient } from "../helpers/admin-client";
import { startAlertReceivers } from "../helpers/alert-receivers";
import { ROUTING_KEY, SECRETS_KEY, alertClients, alertServerEnv, alertWorkerOn } from "../helpers/alert-setup";
import { PrismaAlertRepository } from "../../lib/store/prisma/alert-repository";
import type { TestClient } from "../helpers/client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import type { InsightsClient } from "../helpers/insights-client";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { RunBudgetSchema } from "../../lib/contract/budgets";
import { RunCompensationSchema } from "../../lib/contract/sagas";
import { ToolError, createGate } from "../../lib/sdk";
import { testAlert } from "../../lib/core/alert-shape";
import { pendingDelivery } from "../../lib/server/alerts/pending-delivery";
import { openDb } from "../../lib/store/prisma/client";
import { describeProvidersAtOnce } from "../helpers/providers-at-once";
import { type TestServer, startServer } from "../helpers/server";
import { burstReplays, pacedReplays, prepareStormTool, waitFor } from "../helpers/storm-scenario";

/**
 * Alerts end to end on one server per provider: a scripted storm, a loop and a lease_lost reach
 * local Slack, PagerDuty and Standard Webhooks receivers exactly as the rules say; a 500, a slow
 * receiver, a URL leaving the allowlist and a kill -9 mid-delivery lose nothing and page nothing twice.
 */
describeProvidersAtOnce("alerts", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let admin: AdminClient;
  let insights: InsightsClient;
  let ops: OperatorClient;
  let projectId: string;
  let receivers: Awaited<ReturnType<typeof startAlertReceivers>>;
  let other: Awaited<ReturnType<typeof startAlertReceivers>>;
  let closing: Awaited<ReturnType<typeof startAlertReceivers>>;
  const channels: Record<string, string> = {};
  const env = () => alertServerEnv({ IDEMGATE_ALERT_TIMEOUT_MS: "5000", IDEMGATE_ALERT_LEASE_MS: "6000", IDEMGATE_PUBLIC_URL: "https://idemgate.example.com" });
  const alerts = (rest = "") => ops.p(projectId, `/alerts${rest}`);
  const deliveries = async () => (await ops.call(AlertDeliveriesSchema, "GET", alerts("/deliveries"))).deliveries;
  const settled = (what: string, count: number) =>
    waitFor(
      async () => {
        const all = await deliveries();
        return all.length >= count && all.every((d) => d.status !== "pending") ? all : null;
      },
      90_000,
      what,
    );
  const addChannel = async (body: Record<string, unknown>) => ops.call(CreatedAlertChannelSchema, "POST", alerts("/channels"), body);
  const addRule = (condition: string, names: string[], extra: Record<string, unknown> = {}) =>
    ops.call(AlertRuleSchema, "POST", alerts("/rules"), { condition, channelIds: names.map((n) => channels[n]), ...extra });

  const dispatcherOn = (prisma: ReturnType<typeof openDb>, clock?: () => number, key = SECRETS_KEY) => alertWorkerOn(prisma, key, clock);

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url, "alerts");
    projectId = project.projectId;
    receivers = await startAlertReceivers({ routingKey: ROUTING_KEY });
    other = await startAlertReceivers({ routingKey: ROUTING_KEY });
    closing = await startAlertReceivers({ routingKey: ROUTING_KEY });
    server = await startServer(db.url, env());
    ({ client, admin, insights, ops } = await alertClients(server.baseUrl, project));
  });

  afterAll(async () => {
    await server?.stop();
    await receivers?.close();
    await other?.close();
    await closing?.close();
    await db?.drop();
  });

  it("channels: URLs only through the allowlist, secrets never shown again, webhook secrets answered once", async () => {
    const outside = await ops.expectError("POST", alerts("/channels"), { kind: "slack", name: "team", url: receivers.url("/slack") });
    expect(outside.status).toBe(400);
    expect(JSON.stringify(outside.body)).toContain("outbound allowlist");

    for (const port of [receivers.port, other.port, closing.port]) {
      await ops.call(OutboundAllowlistEntrySchema, "POST", ops.p(projectId, "/outbound-allowlist"), { pattern: `127.0.0.1:${port}` });
    }
    channels.slack = (await addChannel({ kind: "slack", name: "team", url: receivers.url("/slack/T000/B000/XXXX") })).id;
    channels.pd = (await addChannel({ kind: "pagerduty", name: "on call", routingKey: ROUTING_KEY, url: receivers.url("/pagerduty") })).id;
    const hook = await addChannel({ kind: "webhook", name: "ops bus", url: receivers.url("/hooks") });
    expect(hook.signingSecret).toMatch(/^whsec_/);
    receivers.setSecret("/hooks", hook.signingSecret!);
    channels.hook = hook.id;

    const listed = await ops.call(AlertsSchema, "GET", alerts());
    // Scheme and host, and a fingerprint that tells three channels to one host apart: never a path (#43).
    const fingerprint = / \(fingerprint [0-9a-f]{12}\)$/;
    expect(listed.channels.map((c) => [c.kind, c.target.replace(fingerprint, "")])).toEqual([
      ["slack", `http://127.0.0.1:${receivers.port}`],
      ["pagerduty", `http://127.0.0.1:${receivers.port}`],
      ["webhook", `http://127.0.0.1:${receivers.port}`],
    ]);
    expect(listed.channels.every((c) => fingerprint.test(c.target))).toBe(true);
    expect(new Set(listed.channels.map((c) => c.target)).size).toBe(3);
    const text = JSON.stringify(listed);
    for (const secret of ["XXXX", ROUTING_KEY, hook.signingSecret!]) expect(text).not.toContain(secret);
    const operator = await createOperator(await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password), projectId, "operator", "op");
    expect((await operator.expectError("GET", alerts())).status).toBe(403);
  });

  it("a scripted storm, a loop and a lease_lost reach exactly the channels their rules name, once each; PagerDuty pages once per incident and resolves the storm", async () => {
    await addRule("storm_opened", ["slack", "pd", "hook"]);
    await addRule("storm_closed", ["slack", "pd", "hook"]);
    // Another rule naming PagerDuty for the same storm: still one trigger.
    await addRule("dedup_rate", ["pd"]);
    await addRule("loop_blocked", ["slack", "hook"]);
    await addRule("lease_lost", ["pd", "hook"]);

    // The loop: search and fetch with the same arguments; the third pair is blocked.
    const looping = uniqueRun("loop");
    const [search, fetchTool] = [uniqueTool("search"), uniqueTool("fetch")];
    const a = { tool: search, runId: looping, stepId: "search", args: { q: "refunds" } };
    const b = { tool: fetchTool, runId: looping, stepId: "fetch", args: { url: "https://kb/refunds" } };
    await runOnce(client, a);
    await runOnce(client, b);
    for (const request of [a, b, a]) expectDecision(await client.begin(request), "replay");
    expectDecision(await client.begin(b), "blocked");

    // lease_lost: the first attempt answers after the second took over.
    const charge = { tool: uniqueTool("charge"), runId: uniqueRun("stale"), stepId: "charge" };
    const first = expectDecision(await client.begin(charge), "execute");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error: { message: "timeout", retryable: true } });
    expectDecision(await client.begin(charge), "execute");
    expect((await client.expectError("POST", `/api/v1/calls/${first.callId}/complete`, { leaseToken: first.leaseToken, outcome: "succeeded" })).status).toBe(409);

    // The storm: a quiet baseline, a burst, then quiet until it closes.
    const stormy = await prepareStormTool(admin, client, "storm");
    await pacedReplays([client], stormy, 2, 4_500);
    await burstReplays([client], stormy, [35, 20, 15, 10]);
    const closed = await waitFor(async () => (await insights.storms("closed")).storms.find((s) => s.tool === stormy.tool), 90_000, "the closed storm");

    // storm opened ×3 channels, closed ×3, loop ×2, lease_lost ×2.
    const all = await settled("ten settled deliveries", 10);
    expect(all).toHaveLength(10);
    expect(all.every((d) => d.status === "delivered")).toBe(true);

    expect(receivers.slack.map((m) => m.text.split("\n")[0])).toEqual([
      expect.stringContaining(`Loop blocked on ${fetchTool}`),
      expect.stringContaining(`Retry storm opened on ${stormy.tool}`),
      expect.stringContaining(`Retry storm closed on ${stormy.tool}`),
    ]);
    const opened = receivers.slack[1]!.text;
    expect(opened).toMatch(/dedup hits in a 1 s window vs baseline [\d.]+ per window/);
    expect(opened).toContain(`<https://idemgate.example.com/projects/${projectId}/storms/${closed.id}|Open in Idemgate>`);

    const stormKey = `idemgate:${projectId}:storm:${closed.id}`;
    expect(receivers.pagerDuty.map((e) => [e.event_action, e.dedup_key === stormKey ? "storm" : e.payload?.summary.split(":")[0]])).toEqual(
      expect.arrayContaining([["trigger", "storm"], ["resolve", "storm"], ["trigger", `${charge.tool} may have run twice`]]),
    );
    expect(receivers.pagerDuty).toHaveLength(3);
    expect(receivers.incidents.get(stormKey)).toEqual({ pages: 1, status: "resolved" });
    expect([...receivers.incidents.values()].map((i) => i.pages)).toEqual([1, 1]);

    const hooks = receivers.hookAlerts("/hooks");
    expect(hooks.map((h) => h.type).sort()).toEqual(["alert.lease_lost", "alert.loop_blocked", "storm.closed", "storm.opened"]);
    expect(new Set(hooks.map((h) => h.id)).size).toBe(4);
    expect(receivers.rejected).toEqual([]);
    // The storm webhook's payload is kept: {type, sentAt, data: Storm}.
    expect(hooks.find((h) => h.type === "storm.closed")!.body).toMatchObject({ type: "storm.closed", data: { id: closed.id, tool: stormy.tool, status: "closed" } });
    expect(hooks.find((h) => h.type === "alert.lease_lost")!.body.alert).toMatchObject({ condition: "lease_lost", tool: charge.tool, severity: "critical" });
  });

  it("a budget overrun, a verify left unresolved, a pending resend and a failed undo each page once and resolve once settled", async () => {
    channels.pd2 = (await addChannel({ kind: "pagerduty", name: "on call 2", routingKey: ROUTING_KEY, url: closing.url("/pagerduty") })).id;
    channels.slack2 = (await addChannel({ kind: "slack", name: "team 2", url: closing.url("/slack/T1/B1/YYYY") })).id;
    const hook = await addChannel({ kind: "webhook", name: "ops bus 2", url: closing.url("/hooks") });
    closing.setSecret("/hooks", hook.signingSecret!);
    channels.hook2 = hook.id;
    await addRule("budget_exceeded", ["pd2", "slack2"]);
    await addRule("verify_unresolved", ["pd2", "hook2"], { minutes: 1 });
    await addRule("approval_pending", ["pd2"], { minutes: 1 });
    await addRule("compensation_failed", ["pd2", "hook2"]);
    const pdFor = (key: string) => closing.pagerDuty.filter((e) => e.dedup_key === key).map((e) => e.event_action);

    // Budget: one call allowed; the run is refused twice (one incident, told once), then an operator raises it.
    const budgeted = uniqueTool("refund");
    await admin.put(budgeted, { budget: { maxCallsPerRun: 1 }, loop: { enabled: false } });
    const overrun = uniqueRun("overrun");
    await runOnce(client, { tool: budgeted, runId: overrun, stepId: "r1" });
    for (const step of ["r2", "r3"]) expectDecision(await client.begin({ tool: budgeted, runId: overrun, stepId: step }), "blocked");
    const budgetKey = `idemgate:${projectId}:budget:${overrun}`;
    await waitFor(async () => pdFor(budgetKey).length >= 1 && closing.slack.length >= 1, 60_000, "the budget trigger");
    expect(closing.incidents.get(budgetKey)).toEqual({ pages: 1, status: "triggered" });
    await ops.call(RunBudgetSchema, "POST", ops.p(projectId, `/runs/${overrun}/budget`), { maxCallsPerRun: 3, reason: "approved by the customer" });
    await waitFor(async () => closing.incidents.get(budgetKey)?.status === "resolved", 60_000, "the budget incident resolved");
    await runOnce(client, { tool: budgeted, runId: overrun, stepId: "r2" });

    // Verify: an async tool's lease runs out unanswered; the next begin is told to verify.
    const slow = { tool: uniqueTool("provision"), runId: uniqueRun("verify"), stepId: "provision" };
    await admin.put(slow.tool, { effect: "async", leaseSeconds: 1, leaseGraceSeconds: 0, loop: { enabled: false } });
    expectDecision(await client.begin(slow), "execute");
    const verify = await waitFor(async () => {
      const answer = await client.begin(slow);
      return answer.decision === "verify" ? answer : null;
    }, 60_000, "the verify");

    // A resend request waits for an operator.
    const sent = await runOnce(client, { tool: uniqueTool("email"), runId: uniqueRun("resend"), stepId: "send" });
    const asked = (await (await client.raw("POST", `/api/v1/calls/${sent.callId}/resend`, { reason: "the customer says it never came" })).json()) as { requestId: string };

    // The timed rules fire after their minutes: a worker whose clock runs two minutes ahead scans them.
    const prisma = openDb({ databaseUrl: db.url });
    try {
      await dispatcherOn(prisma, () => Date.now() + 120_000).scanTimed(Date.now() + 120_000);
    } finally {
      await prisma.$disconnect();
    }
    const verifyKey = (await waitFor(async () => closing.pagerDuty.find((e) => e.payload?.class === "verify_unresolved"), 60_000, "the verify trigger")).dedup_key;
    const approvalKey = (await waitFor(async () => closing.pagerDuty.find((e) => e.payload?.class === "approval_pending"), 60_000, "the approval trigger")).dedup_key;
    await client.complete(verify.callId, { leaseToken: verify.leaseToken, outcome: "succeeded", result: { found: true } });
    await ops.deny(projectId, asked.requestId, "sent once already");

    // A saga's undo fails for good; an operator resolves it by hand.
    const saga = uniqueRun("saga");
    const gate = createGate({ baseUrl: server.baseUrl, apiKey: client.apiKey, toolRetry: false });
    await gate.run({ runId: saga }, () => gate.call({ tool: uniqueTool("charge"), step: "charge" }, () => ({ chargeId: "c1" }), { compensate: (r) => ({ tool: "refund_charge", args: r }) }));
    const aborted = await gate.abort(saga, "the user cancelled", {
      compensators: {
        refund_charge: () => {
          throw new ToolError("charge already disputed", { retryable: false });
        },
      },
    });
    expect(aborted).toMatchObject({ ok: false, state: "compensation_failed" });
    const undoKey = (await waitFor(async () => closing.pagerDuty.find((e) => e.payload?.class === "compensation_failed"), 60_000, "the undo trigger")).dedup_key;
    const step = aborted.plan.steps[0]!;
    await ops.call(RunCompensationSchema, "POST", ops.p(projectId, `/runs/${saga}/compensations/${step.callId}/resolve`), { note: "refunded by hand in the PSP" });

    await waitFor(async () => [verifyKey, approvalKey, undoKey].every((key) => closing.incidents.get(key)?.status === "resolved"), 60_000, "every incident resolved");
    // The other channels get their resolves in their own time: wait until every delivery has settled.
    const mine = await waitFor(
      async () => {
        const ours = (await deliveries()).filter((d) => [channels.pd2, channels.slack2, channels.hook2].includes(d.channelId));
        // The budget's second refusal may come as an update of its incident (#44): at least these.
        return ours.length >= 8 + 2 + 4 && ours.every((d) => d.status !== "pending") ? ours : null;
      },
      60_000,
      "every delivery of these rules settled",
    );
    // Each condition: one trigger, then one resolve, under one dedup_key; one page each; no resolve without its trigger.
    const budgetEvents = pdFor(budgetKey);
    expect([budgetEvents[0], budgetEvents.at(-1), budgetEvents.filter((e) => e === "resolve").length]).toEqual(["trigger", "resolve", 1]);
    for (const key of [verifyKey, approvalKey, undoKey]) expect(pdFor(key), key).toEqual(["trigger", "resolve"]);
    expect([...closing.incidents.values()]).toEqual(Array(4).fill({ pages: 1, status: "resolved" }));
    expect(closing.strayResolves).toEqual([]);
    expect(closing.pagerDuty.filter((e) => e.dedup_key !== budgetKey)).toHaveLength(6);
    // Slack reads: the refusal with the spend, then that the budget was raised.
    const said = closing.slack.map((m) => m.text.split("\n")[0]);
    expect(said[0]).toContain(`Run ${overrun} exceeded its budget on ${budgeted}`);
    expect(said.slice(1, -1).every((line) => line!.includes(`Updated: Run ${overrun} exceeded its budget`))).toBe(true);
    expect(said.at(-1)).toContain(`Resolved: Run ${overrun} exceeded its budget`);
    expect(closing.slack[0]!.text).toContain("the run made 1 tool calls of 1 allowed");
    const hooks = closing.hookAlerts("/hooks");
    expect(hooks.map((h) => h.type).sort()).toEqual(["alert.compensation_failed", "alert.compensation_failed.resolved", "alert.verify_unresolved", "alert.verify_unresolved.resolved"]);
    expect(new Set(hooks.map((h) => h.id)).size).toBe(4);
    expect(closing.rejected).toEqual([]);
    // Every delivery of these rules was delivered.
    expect(mine.every((d) => d.status === "delivered")).toBe(true);
  });

  it("a receiver answering 500 is retried with backoff until it takes the alert: one webhook-id, every attempt in the log", async () => {
    const flaky = await addChannel({ kind: "webhook", name: "flaky", url: other.url("/flaky") });
    other.setSecret("/flaky", flaky.signingSecret!);
    other.setMode("/flaky", { kind: "fail", times: 2 });
    const test = await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${flaky.id}/test`));
    const done = await waitFor(async () => (await deliveries()).find((d) => d.id === test.id && d.status !== "pending"), 60_000, "the flaky delivery");
    expect(done).toMatchObject({ status: "delivered", attempts: 3, lastCode: 204 });
    expect(done.log.map((l) => [l.outcome, l.statusCode])).toEqual([["retry", 500], ["retry", 500], ["delivered", 204]]);
    expect(other.requests("/flaky").map((r) => r.webhookId)).toEqual([test.id, test.id, test.id]);
    expect(other.hookAlerts("/flaky").map((h) => h.type)).toEqual(["alert.test"]);
  });

  it("a slow receiver times out, is retried, and the alert arrives once more with the same id", async () => {
    const slow = await addChannel({ kind: "webhook", name: "slow", url: other.url("/slow") });
    other.setSecret("/slow", slow.signingSecret!);
    other.setMode("/slow", { kind: "hang", times: 1 });
    const test = await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${slow.id}/test`));
    const done = await waitFor(async () => (await deliveries()).find((d) => d.id === test.id && d.status !== "pending"), 60_000, "the slow delivery");
    expect(done.status).toBe("delivered");
    expect(done.log.map((l) => l.outcome)).toEqual(["retry", "delivered"]);
    expect(done.log[0]!.error).toMatch(/no answer within 5000 ms/);
    expect(other.requests("/slow").map((r) => r.webhookId)).toEqual([test.id, test.id]);
  });

  it("a URL that leaves the allowlist is refused and retried, never sent; back on the allowlist, the same alert goes out", async () => {
    const entries = (await ops.call(OutboundAllowlistSchema, "GET", ops.p(projectId, "/outbound-allowlist"))).entries;
    const entry = entries.find((e) => e.pattern === `127.0.0.1:${other.port}`)!;
    const gated = await addChannel({ kind: "slack", name: "gated", url: other.url("/slack/gated") });
    await ops.call(OutboundAllowlistEntrySchema, "DELETE", ops.p(projectId, `/outbound-allowlist/${entry.id}`));
    const test = await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${gated.id}/test`));
    const refused = await waitFor(async () => (await deliveries()).find((d) => d.id === test.id && d.attempts >= 2), 60_000, "two refused attempts");
    expect(refused.status).toBe("pending");
    expect(refused.log.every((l) => l.outcome === "retry" && l.statusCode === null && /outbound allowlist/.test(l.error ?? ""))).toBe(true);
    expect(other.requests("/slack/gated")).toEqual([]);

    await ops.call(OutboundAllowlistEntrySchema, "POST", ops.p(projectId, "/outbound-allowlist"), { pattern: `127.0.0.1:${other.port}` });
    const done = await waitFor(async () => (await deliveries()).find((d) => d.id === test.id && d.status === "delivered"), 60_000, "the delivery once allowed");
    expect(done.log.at(-1)).toMatchObject({ outcome: "delivered", statusCode: 200 });
    expect(other.slack.map((m) => m.text)).toEqual([expect.stringContaining("Idemgate test alert")]);
  });

  it("three workers racing for the same due deliveries (the server's and two more on the database): each is sent once", async () => {
    const burst = await addChannel({ kind: "webhook", name: "burst", url: other.url("/burst") });
    other.setSecret("/burst", burst.signingSecret!);
    const prisma = openDb({ databaseUrl: db.url });
    try {
      const store = new PrismaAlertRepository(prisma);
      const worker = () => dispatcherOn(prisma);
      // All due at one instant a little ahead, so the three workers meet them together.
      const due = Date.now() + 1_500;
      const ids = Array.from({ length: 20 }, (_, i) => `alr_race_${provider}_${i}`);
      for (const id of ids) {
        await store.insertDelivery(pendingDelivery(projectId, testAlert(`sig_test_${id}`, projectId, "", due), burst.id, null, due, id));
      }
      const [a, b] = [worker(), worker()];
      await waitFor(
        async () => {
          await Promise.all([a.deliverDue(), b.deliverDue()]);
          return (await deliveries()).filter((d) => ids.includes(d.id) && d.status === "delivered").length === ids.length;
        },
        60_000,
        "twenty raced deliveries",
      );
      // Due together, they go out grouped (#44): every alert once, whichever request carried it.
      const received = other.hookAlerts("/burst").map((h) => h.id);
      expect(received.sort()).toEqual([...ids].sort());
      expect(other.rejected).toEqual([]);
    } finally {
      await prisma.$disconnect();
    }
  });

  it("a worker that cannot open a channel's secrets logs a retryable attempt and lets go; a worker with the key sends it once", async () => {
    const sealed = await addChannel({ kind: "webhook", name: "sealed", url: other.url("/sealed") });
    other.setSecret("/sealed", sealed.signingSecret!);
    const prisma = openDb({ databaseUrl: db.url });
    try {
      // Due a minute ahead, so only the two workers below (their clocks ahead) meet it, not the server's.
      const ahead = () => Date.now() + 120_000;
      const due = Date.now() + 60_000;
      const id = `alr_sealed_${provider}`;
      await new PrismaAlertRepository(prisma).insertDelivery(pendingDelivery(projectId, testAlert(`sig_test_${id}`, projectId, "", due), sealed.id, null, due, id));

      await dispatcherOn(prisma, ahead, Buffer.alloc(32, 0x22).toString("base64")).deliverDue();
      const refused = (await deliveries()).find((d) => d.id === id)!;
      expect(refused).toMatchObject({ status: "pending", attempts: 1 });
      expect(refused.log.map((l) => [l.outcome, l.statusCode])).toEqual([["retry", null]]);
      expect(refused.log[0]!.error).toMatch(/cannot open the channel's secrets: every instance needs the same IDEMGATE_SECRETS_KEY/);
      expect(other.requests("/sealed")).toEqual([]);

      // The lease (6 s) went back with the attempt: a worker whose clock is past the retry (200 ms) but
      // not past the lease claims it at once.
      await dispatcherOn(prisma, () => ahead() + 1_500).deliverDue();
      const done = (await deliveries()).find((d) => d.id === id)!;
      expect(done.status).toBe("delivered");
      expect(done.log.map((l) => l.outcome)).toEqual(["retry", "delivered"]);
      expect(other.requests("/sealed").map((r) => r.webhookId)).toEqual([id]);
    } finally {
      await prisma.$disconnect();
    }
  });

  it("kill -9 mid-delivery: after restart the same alert is delivered again with the same webhook-id, and only once more", async () => {
    const held = await addChannel({ kind: "webhook", name: "held", url: other.url("/held") });
    other.setSecret("/held", held.signingSecret!);
    other.setMode("/held", { kind: "hang", times: 1_000 });
    const test = await ops.call(AlertDeliverySchema, "POST", alerts(`/channels/${held.id}/test`));
    await waitFor(async () => other.requests("/held").length >= 1, 60_000, "the delivery in flight");
    await server.kill();
    other.setMode("/held", { kind: "ok" });

    server = await startServer(db.url, env());
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    ops = await createOperator(root, projectId, "admin", "after-restart");
    const done = await waitFor(async () => (await deliveries()).find((d): d is AlertDeliveryWire => d.id === test.id && d.status === "delivered"), 60_000, "the redelivery");
    // The killed attempt never wrote its log line: one attempt on record, the one that landed.
    expect(done.log.map((l) => l.outcome)).toEqual(["delivered"]);
    expect(other.requests("/held").map((r) => r.webhookId)).toEqual([test.id, test.id]);
    expect(other.hookAlerts("/held").map((h) => h.id)).toEqual([test.id]);
  });
});
