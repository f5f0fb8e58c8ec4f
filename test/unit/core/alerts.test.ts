import { describe, expect, it } from "vitest";
import {
  type AlertRuleSpec,
  type AlertSignal,
  closableCondition,
  conditionsOf,
  incidentKeyOf,
  resolveSignal,
  routeIncident,
  routeSignal,
  routeUpdates,
} from "../../../lib/core/alerts";
import { countedAlert, shapeAlert } from "../../../lib/core/alert-shape";
import { pagerDutyBody, slackBody, slackGroupBody, webhookBody, webhookGroupBody } from "../../../lib/core/alert-payloads";
import { MAX_RETRY_AFTER_MS, attemptOutcome, retryAfterMs, retryDelayMs } from "../../../lib/core/alert-delivery";

const signal = (over: Partial<AlertSignal>): AlertSignal => ({
  id: "sig_1",
  projectId: "proj_1",
  kind: "event",
  sourceId: "evt_1",
  tool: "charge",
  runId: "run_1",
  callId: "call_1",
  detail: null,
  at: 1_700_000_000_000,
  ...over,
});
const storm = (kind: "storm_opened" | "storm_closed", rule = "baseline") =>
  signal({ kind, id: `sig_storm_1_${kind}`, sourceId: "storm_1", runId: null, callId: null, detail: { rule, baseline: 2, threshold: 20, windowSeconds: 1, openingHits: 35, peakHits: 35, totalHits: 40, runsInvolved: 4 } });
const rule = (over: Partial<AlertRuleSpec>): AlertRuleSpec => ({ id: "arl_1", condition: "storm_opened", tool: null, minutes: null, channelIds: ["a"], ...over });
const backoff = { baseMs: 1_000, maxMs: 8_000, maxAttempts: 5 };

describe("alert conditions", () => {
  it("maps each raising event to its condition", () => {
    expect(conditionsOf(signal({ detail: { type: "lease_lost", decision: "complete_succeeded" } }))).toEqual(["lease_lost"]);
    expect(conditionsOf(signal({ detail: { type: "begin", decision: "blocked", detail: JSON.stringify({ loop: { reason: "loop_detected", repeats: 3 } }) } }))).toEqual(["loop_blocked"]);
    expect(conditionsOf(signal({ detail: { type: "begin", decision: "blocked", detail: JSON.stringify({ reason: "budget_exceeded" }) } }))).toEqual(["budget_exceeded"]);
    expect(conditionsOf(signal({ detail: { type: "begin", decision: "blocked", detail: JSON.stringify({ budget: { spent: 20 } }) } }))).toEqual(["budget_exceeded"]);
    expect(conditionsOf(signal({ detail: { type: "complete", decision: "failed", key: "k:compensate" } }))).toEqual(["compensation_failed"]);
    expect(conditionsOf(storm("storm_opened"))).toEqual(["storm_opened", "dedup_rate"]);
    expect(conditionsOf(storm("storm_opened", "absolute"))).toEqual(["storm_opened"]);
    expect(conditionsOf(storm("storm_closed"))).toEqual(["storm_closed", "dedup_rate"]);
  });

  it("routes a signal once per channel, by condition and tool; timed signals only by the rule that raised them", () => {
    const rules = [rule({ id: "r1", channelIds: ["a", "b"] }), rule({ id: "r2", condition: "dedup_rate", channelIds: ["b", "c"] }), rule({ id: "r3", tool: "other", channelIds: ["d"] })];
    expect(routeSignal(storm("storm_opened"), rules)).toEqual([
      { ruleId: "r1", channelId: "a", condition: "storm_opened" },
      { ruleId: "r1", channelId: "b", condition: "storm_opened" },
      { ruleId: "r2", channelId: "c", condition: "dedup_rate" },
    ]);
    expect(routeSignal(signal({ detail: { type: "lease_lost" } }), rules)).toEqual([]);
    const timed = [rule({ id: "t1", condition: "verify_unresolved", channelIds: ["a"] }), rule({ id: "t2", condition: "verify_unresolved", channelIds: ["b"] })];
    expect(routeSignal(signal({ kind: "verify_unresolved", detail: { ruleId: "t2", minutes: 5 } }), timed).map((r) => r.channelId)).toEqual(["b"]);
  });
});

describe("closing incidents", () => {
  const budget = signal({ detail: { type: "begin", decision: "blocked", detail: JSON.stringify({ reason: "budget_exceeded", budget: { exceeded: "calls", calls: 2, maxCalls: 2 } }) } });
  const verify = signal({ id: "sig_verify_t1_call_1_2", kind: "verify_unresolved", sourceId: "call_1", detail: { ruleId: "t1", minutes: 5, attempt: 2 } });
  const approval = signal({ id: "sig_resend_t2_rr_1", kind: "approval_pending", sourceId: "rr_1", runId: null, detail: { ruleId: "t2", minutes: 5 } });
  const compensation = signal({ detail: { type: "complete", decision: "failed", key: "k:compensate" } });

  it("every closable condition resolves under its trigger's dedup key, routed by the same rules; moments do not close", () => {
    const rules = [
      rule({ id: "t1", condition: "verify_unresolved", channelIds: ["pd"] }),
      rule({ id: "t2", condition: "approval_pending", channelIds: ["pd"] }),
      rule({ id: "b", condition: "budget_exceeded", channelIds: ["pd", "slack"] }),
      rule({ id: "c", condition: "compensation_failed", channelIds: ["pd"] }),
    ];
    for (const trigger of [budget, verify, approval, compensation]) {
      const condition = closableCondition(trigger)!;
      const resolve = resolveSignal(trigger, trigger.at + 60_000);
      expect(resolve.id).toBe(`${trigger.id}_resolved`);
      expect(routeSignal(resolve, rules)).toEqual(routeSignal(trigger, rules));
      const [opened, closed] = [shapeAlert(trigger, condition, "https://g"), shapeAlert(resolve, condition, "https://g")];
      expect([opened.action, closed.action]).toEqual(["trigger", "resolve"]);
      expect(closed.dedupKey).toBe(opened.dedupKey);
      expect(closed.title).toBe(`Resolved: ${opened.title}`);
      expect(pagerDutyBody(closed, "rk")).toEqual({ routing_key: "rk", event_action: "resolve", dedup_key: opened.dedupKey });
    }
    expect(closableCondition(signal({ detail: { type: "lease_lost" } }))).toBeNull();
    expect(closableCondition(signal({ detail: { type: "begin", decision: "blocked", detail: JSON.stringify({ loop: { repeats: 3 } }) } }))).toBe("loop_blocked");
  });

  it("a trigger goes only to channels not already told the incident is open; a resolve to every channel told it fired", () => {
    const rules = [rule({ id: "b", condition: "budget_exceeded", channelIds: ["pd", "slack"] })];
    const again = { ...budget, id: "sig_2", sourceId: "evt_2" };
    expect(incidentKeyOf(again)).toBe("idemgate:proj_1:budget:run_1");
    // The first refusal opens the incident on both; the second is the same incident: nobody hears it again.
    expect(routeIncident(budget, routeSignal(budget, rules), []).map((r) => r.channelId)).toEqual(["pd", "slack"]);
    const open = [
      { channelId: "pd", ruleId: "b", condition: "budget_exceeded" as const },
      { channelId: "slack", ruleId: "b", condition: "budget_exceeded" as const },
    ];
    expect(routeIncident(again, routeSignal(again, rules), open)).toEqual([]);
    // A rule removed since: the resolve still reaches both channels that were told.
    const resolve = resolveSignal(budget, budget.at + 1);
    expect(incidentKeyOf(resolve)).toBe("idemgate:proj_1:budget:run_1");
    expect(routeIncident(resolve, [], open).map((r) => r.channelId)).toEqual(["pd", "slack"]);
    // Nobody told: no stray resolve.
    expect(routeIncident(resolve, routeSignal(resolve, rules), [])).toEqual([]);
    // A storm's close goes to the channels told it opened (only a storm_opened rule) and to storm_closed rules.
    const closed = storm("storm_closed");
    expect(incidentKeyOf(closed)).toBe(incidentKeyOf(storm("storm_opened")));
    const stormRules = [rule({ id: "c", condition: "storm_closed", channelIds: ["log"] })];
    expect(routeIncident(closed, routeSignal(closed, stormRules), [{ channelId: "pd", ruleId: "o", condition: "storm_opened" }]).map((r) => r.channelId)).toEqual(["pd", "log"]);
  });

  it("a later refusal of an open budget or loop incident updates the channels told it, and only them; a storm or a resolve never does", () => {
    const rules = [rule({ id: "b", condition: "budget_exceeded", channelIds: ["pd", "slack", "new"] })];
    const again = { ...budget, id: "sig_2", sourceId: "evt_2" };
    const open = [
      { channelId: "pd", ruleId: "b", condition: "budget_exceeded" as const },
      { channelId: "slack", ruleId: "b", condition: "budget_exceeded" as const },
    ];
    expect(routeUpdates(again, routeSignal(again, rules), open).map((r) => r.channelId)).toEqual(["pd", "slack"]);
    expect(routeUpdates(again, routeSignal(again, rules), [])).toEqual([]);
    expect(routeUpdates(resolveSignal(budget, budget.at + 1), routeSignal(budget, rules), open)).toEqual([]);
    const opened = storm("storm_opened");
    expect(routeUpdates(opened, routeSignal(opened, [rule({ channelIds: ["pd"] })]), [{ channelId: "pd", ruleId: "o", condition: "storm_opened" }])).toEqual([]);
  });

  it("an incident's alert says how many refusals it gathered; as an update it says it changed, under the same dedup_key", () => {
    const first = shapeAlert(budget, "budget_exceeded", "https://g");
    expect(countedAlert(first, 1, false)).toEqual(first);
    const four = countedAlert(first, 4, false);
    expect(four.summary).toBe(`${first.summary} Refused 4 times in this run so far.`);
    expect([four.type, four.title, four.action, four.dedupKey]).toEqual([first.type, first.title, "trigger", first.dedupKey]);
    const update = countedAlert(first, 5, true);
    expect([update.type, update.title, update.action, update.dedupKey]).toEqual(["alert.budget_exceeded.updated", `Updated: ${first.title}`, "trigger", first.dedupKey]);
    expect(pagerDutyBody(update, "rk")).toMatchObject({ event_action: "trigger", dedup_key: first.dedupKey });
  });

  it("budgets and loops page once per run: a run refused again shares the incident", () => {
    const again = { ...budget, id: "sig_2", sourceId: "evt_2" };
    expect(shapeAlert(again, "budget_exceeded", "").dedupKey).toBe(shapeAlert(budget, "budget_exceeded", "").dedupKey);
    expect(shapeAlert(budget, "budget_exceeded", "").dedupKey).toBe("idemgate:proj_1:budget:run_1");
    expect(shapeAlert(signal({ detail: { type: "lease_lost" } }), "lease_lost", "").dedupKey).toBe("idemgate:proj_1:sig_1");
  });
});

describe("alert shapes", () => {
  it("a storm opens and resolves under one dedup key, with a readable Slack line and the storm link", () => {
    const opened = shapeAlert(storm("storm_opened"), "storm_opened", "https://gate.example.com/");
    const closed = shapeAlert(storm("storm_closed"), "storm_closed", "https://gate.example.com/");
    expect(opened).toMatchObject({ type: "storm.opened", action: "trigger", severity: "error", link: "https://gate.example.com/projects/proj_1/storms/storm_1" });
    expect(closed).toMatchObject({ type: "storm.closed", action: "resolve", severity: "info" });
    expect(closed.dedupKey).toBe(opened.dedupKey);
    expect(opened.summary).toBe("35 dedup hits in a 1 s window vs baseline 2.0 per window (17.5× baseline); threshold 20.0. 4 run(s) involved.");
    expect(slackBody(opened).text).toBe(`:rotating_light: *Retry storm opened on charge*\n${opened.summary}\n<https://gate.example.com/projects/proj_1/storms/storm_1|Open in Idemgate>`);
    expect(pagerDutyBody(closed, "rk")).toEqual({ routing_key: "rk", event_action: "resolve", dedup_key: opened.dedupKey });
    expect(pagerDutyBody(opened, "rk")).toMatchObject({ event_action: "trigger", dedup_key: opened.dedupKey, payload: { source: "idemgate", severity: "error", component: "charge", group: "proj_1" } });
  });

  it("the generic webhook keeps the storm webhook's {type, sentAt, data} and adds timestamp and the alert", () => {
    const data = { id: "storm_1", status: "open" };
    const body = webhookBody(shapeAlert(storm("storm_opened"), "storm_opened", "", data), 1_700_000_000_000);
    expect(body).toMatchObject({ type: "storm.opened", sentAt: "2023-11-14T22:13:20.000Z", timestamp: "2023-11-14T22:13:20.000Z", data, alert: { condition: "storm_opened" } });
  });

  it("budget_exceeded says what the run spent against its limit, from the blocked event's detail", () => {
    const budget = { exceeded: "cost", calls: 4, maxCalls: null, spent: 20, maxCost: 20, currency: "USD" };
    const alert = shapeAlert(signal({ detail: { type: "begin", decision: "blocked", detail: JSON.stringify({ reason: "budget_exceeded", budget }) } }), "budget_exceeded", "");
    expect(alert).toMatchObject({ type: "alert.budget_exceeded", title: "Run run_1 exceeded its budget on charge", link: "/projects/proj_1/runs/run_1" });
    expect(alert.summary).toBe("A begin of charge in run run_1 was blocked: the run spent 20.00 USD of 20.00.");
  });

  it("lease_lost links the call and says what may have happened", () => {
    const alert = shapeAlert(signal({ detail: { type: "lease_lost", attempt: 1 } }), "lease_lost", "");
    expect(alert).toMatchObject({ title: "charge may have run twice", severity: "critical", link: "/projects/proj_1/calls/call_1", dedupKey: "idemgate:proj_1:sig_1" });
  });

  it("lease_lost names the attempt that answered late, not the record's current one", () => {
    const alert = shapeAlert(signal({ detail: { type: "lease_lost", attempt: 2, detail: JSON.stringify({ lateAttempt: 1 }) } }), "lease_lost", "");
    expect(alert.summary).toContain("Attempt 1 of call call_1");
    expect(alert.summary).toContain("lost to attempt 2");
  });

  it("agent-controlled text reaches Slack escaped: no mention, no link of its own", () => {
    const alert = shapeAlert(signal({ tool: "kb_search<!channel>", runId: "run<https://evil.example|x>&", detail: { type: "lease_lost", attempt: 2 } }), "lease_lost", "https://gate.example.com");
    const body = slackBody(alert) as { text: string; blocks: { text?: { text: string }; elements?: { text: string }[] }[] };
    const texts = [body.text, body.blocks[0]!.text!.text, body.blocks[1]!.elements![0]!.text];
    for (const text of texts) {
      expect(text).not.toContain("<!channel>");
      expect(text).not.toContain("<https://evil");
    }
    expect(body.text).toContain("kb_search&lt;!channel&gt;");
    expect(body.text).toContain("run&lt;https://evil.example|x&gt;&amp;");
    // The one link that remains is ours.
    expect(body.text.match(/<[^>]*>/g)).toEqual(["<https://gate.example.com/projects/proj_1/calls/call_1|Open in Idemgate>"]);
    expect(body.blocks[1]!.elements![0]!.text).toContain("tool `kb_search&lt;!channel&gt;`");
  });
});

describe("delivery backoff", () => {
  it("doubles from the base up to the cap", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, backoff))).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
  });

  it("2xx delivers; no answer, 408, 429 and 5xx retry until the last attempt; other 4xx fail at once", () => {
    expect(attemptOutcome(204, 1, backoff)).toBe("delivered");
    expect([null, 408, 429, 500, 503].map((s) => attemptOutcome(s, 1, backoff))).toEqual(["retry", "retry", "retry", "retry", "retry"]);
    expect(attemptOutcome(500, 5, backoff)).toBe("failed");
    expect([400, 401, 404].map((s) => attemptOutcome(s, 1, backoff))).toEqual(["failed", "failed", "failed"]);
  });

  it("a 429 or 503 with Retry-After is retried after that time, within a bound; other answers use the backoff", () => {
    const now = 1_700_000_000_000;
    expect(retryAfterMs(429, "20", now)).toBe(20_000);
    expect(retryAfterMs(503, " 3 ", now)).toBe(3_000);
    expect(retryAfterMs(503, new Date(now + 7_000).toUTCString(), now)).toBe(7_000);
    expect(retryAfterMs(429, "86400", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs(429, new Date(now - 7_000).toUTCString(), now)).toBe(0);
    for (const [status, header] of [[500, "20"], [429, null], [429, "soon"], [null, "20"]] as const) expect(retryAfterMs(status, header, now)).toBeNull();
  });
});

describe("grouped Slack messages", () => {
  it("twenty storms that fire together are one message listing each, within Slack's limits, escaped", () => {
    const storms = Array.from({ length: 20 }, (_, i) =>
      shapeAlert({ ...storm("storm_opened"), id: `sig_s${i}`, sourceId: `storm_${i}`, tool: `tool_${i}<!here>` }, "storm_opened", "https://g"),
    );
    const body = slackGroupBody(storms) as { text: string; blocks: { text: { text: string } }[] };
    expect(body.text.split("\n")[0]).toContain("20 alerts in project `proj_1`* (20 firing)");
    for (let i = 0; i < 20; i++) expect(body.text).toContain(`Retry storm opened on tool_${i}&lt;!here&gt;`);
    expect(body.text).not.toContain("<!here>");
    expect(body.blocks.length).toBeLessThanOrEqual(50);
    expect(body.blocks.every((block) => block.text.text.length <= 3_000)).toBe(true);
    expect(body.text.length).toBeLessThanOrEqual(40_000);
    // One alert alone is the plain message.
    expect(slackGroupBody(storms.slice(0, 1))).toEqual(slackBody(storms[0]!));
  });
});

describe("grouped webhooks", () => {
  it("alerts that fire together are one alert.group body carrying each alert's own body and delivery id", () => {
    const opened = shapeAlert({ ...storm("storm_opened"), id: "sig_a", sourceId: "storm_a" }, "storm_opened", "https://g");
    const closed = shapeAlert({ ...storm("storm_closed"), id: "sig_b", sourceId: "storm_b" }, "storm_closed", "https://g");
    const at = Date.UTC(2026, 0, 1);
    const body = webhookGroupBody([{ deliveryId: "alr_a", alert: opened }, { deliveryId: "alr_b", alert: closed }], at) as { type: string; sentAt: string; data: Record<string, unknown> };
    expect(body.type).toBe("alert.group");
    expect(body.sentAt).toBe(new Date(at).toISOString());
    expect(body.data).toMatchObject({ projectId: "proj_1", firing: 1, resolved: 1 });
    expect(body.data.alerts).toEqual([
      { deliveryId: "alr_a", ...webhookBody(opened, at) },
      { deliveryId: "alr_b", ...webhookBody(closed, at) },
    ]);
  });
});
