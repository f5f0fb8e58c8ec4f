import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { type Backoff, CHANNEL_PACE_MS, attemptOutcome, retryAfterMs, retryDelayMs } from "../../core/alert-delivery";
import { SLACK_GROUP_MAX, WEBHOOK_GROUP_MAX, slackGroupBody, webhookGroupBody } from "../../core/alert-payloads";
import { type Alert, type AlertSignal, CLOSABLE_CONDITIONS, closableCondition, incidentKeyOf, resolveSignal, routeIncident, routeSignal, routeUpdates } from "../../core/alerts";
import { countedAlert, shapeAlert } from "../../core/alert-shape";
import type { AlertDeliveryRow, AlertStore } from "../../store/ports/alert-store";
import { newId } from "../ids";
import { OutboundRefusedError } from "../outbound/outbound-refused";
import type { OutboundInit } from "../outbound/outbound-fetch";
import type { SecretBox } from "../gateways/upstreams/secret-box";
import { channelRequest, openSecrets } from "./alert-channels";
import { pendingDelivery } from "./pending-delivery";

const SIGNAL_BATCH = 100;
/** Open incidents looked at per scan. */
const INCIDENT_BATCH = 200;
const DELIVERY_BATCH = 100;
/** Groups one Slack lane sends before it yields to the next pass. */
const MAX_GROUPS_PER_LANE = 10;
/** How far back a timed scan looks for unanswered verifies. */
const VERIFY_LOOKBACK_MS = 24 * 3_600_000;
const MINUTE_MS = 60_000;
const PURGE_EVERY_MS = 3_600_000;

export interface AlertDispatcherDeps {
  store: AlertStore;
  box: SecretBox;
  fetch: (projectId: string, url: string, init: OutboundInit) => Promise<Response>;
  /** The storm as the storms API gives it: the `data` of storm alerts. */
  storm: (projectId: string, id: string) => Promise<Record<string, unknown> | null>;
  baseUrl: string;
  backoff: Backoff;
  timeoutMs: number;
  leaseMs: number;
  /** How long a Slack delivery waits for others of its channel to go out with it (Alertmanager's group_wait). */
  groupWaitMs?: number;
  /** How often timed rules are scanned (verify unresolved, approval pending), and open incidents checked for closing. */
  timedScanMs?: number;
  /** Processed signals, settled deliveries and their log are kept this long. */
  retentionMs: number;
  clock?: () => number;
}

/**
 * The alerts' delivery worker, on every server. Each pass: timed rules raise their signals (ids
 * derived from what was found, so a second scan or a second instance adds nothing); new signals
 * from the outbox become one delivery per channel (unique per signal and channel, whoever writes
 * first); due deliveries are claimed with a lease in the database and sent. A claimed delivery is
 * sent by one worker at a time; a worker that dies mid-send leaves its lease to run out, and the
 * next claim sends the same delivery again (same webhook-id, same dedup_key).
 */
export class AlertDispatcher {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  private readonly clock: () => number;
  private lastTimedScan = 0;
  private lastPurge = 0;
  private running: Promise<void> | null = null;
  private again = false;
  /** Channels this worker is sending to now, each in its own lane: a slow receiver holds up only itself. */
  private readonly lanes = new Map<string, Promise<void>>();
  /** When each channel may next be sent to (its service's pace). */
  private readonly nextSendAt = new Map<string, number>();

  constructor(private readonly deps: AlertDispatcherDeps) {
    this.clock = deps.clock ?? Date.now;
    if (deps.leaseMs < deps.timeoutMs + 1_000) throw new Error("the alert lease must outlast a delivery's timeout by a second");
  }

  /** One pass; concurrent calls share it (and one more pass follows when asked during it). */
  tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async pass(): Promise<void> {
    const now = this.clock();
    if (now - this.lastTimedScan >= (this.deps.timedScanMs ?? 15_000)) {
      this.lastTimedScan = now;
      await this.scanTimed(now);
      await this.closeIncidents(now);
    }
    await this.fanOut();
    // The lanes are not awaited: each runs on; a pass only starts the lanes of idle channels.
    await this.startLanes();
    if (now - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = now;
      await this.deps.store.purge(now - this.deps.retentionMs);
    }
  }

  /** Timed rules: verifies and resend requests waiting longer than the rule's minutes. */
  async scanTimed(now: number): Promise<void> {
    const { store } = this.deps;
    for (const projectId of await store.projectsWithTimedRules()) {
      for (const rule of await store.listRules(projectId)) {
        const minutes = rule.minutes ?? 15;
        const olderThan = now - minutes * MINUTE_MS;
        if (rule.condition === "verify_unresolved") {
          for (const call of await store.waitingVerifies(projectId, olderThan, olderThan - VERIFY_LOOKBACK_MS)) {
            await store.insertSignal({
              id: `sig_verify_${rule.id}_${call.callId}_${call.attempt}`,
              projectId,
              kind: "verify_unresolved",
              sourceId: call.callId,
              tool: call.tool,
              runId: call.runId,
              callId: call.callId,
              detail: { ruleId: rule.id, minutes, attempt: call.attempt, askedAt: call.at },
              at: now,
            });
          }
        } else if (rule.condition === "approval_pending") {
          for (const request of await store.waitingResends(projectId, olderThan)) {
            await store.insertSignal({
              id: `sig_resend_${rule.id}_${request.id}`,
              projectId,
              kind: "approval_pending",
              sourceId: request.id,
              tool: request.tool,
              runId: null,
              callId: request.callId,
              detail: { ruleId: rule.id, minutes, requestedAt: request.createdAt },
              at: now,
            });
          }
        }
      }
    }
  }

  /**
   * Closable conditions (CLOSABLE_CONDITIONS) that were sent as triggers: once what raised one no
   * longer holds, its resolve signal is raised (id derived from the trigger's, so a second scan or a
   * second instance adds nothing), and goes out like any signal under the trigger's dedup_key.
   */
  async closeIncidents(now: number): Promise<void> {
    const { store } = this.deps;
    for (const signal of await store.openIncidents(CLOSABLE_CONDITIONS, INCIDENT_BATCH)) {
      const condition = closableCondition(signal);
      if (condition === null || (await store.incidentHolds(signal, condition))) continue;
      await store.insertSignal(resolveSignal(signal, now));
    }
  }

  /** New signals → deliveries, each signal in one transaction with its processed stamp. */
  async fanOut(): Promise<void> {
    const { store } = this.deps;
    const rulesOf = new Map<string, Awaited<ReturnType<AlertStore["listRules"]>>>();
    const groupedOf = new Map<string, Set<string>>();
    for (const signal of await store.unprocessedSignals(SIGNAL_BATCH)) {
      if (!rulesOf.has(signal.projectId)) rulesOf.set(signal.projectId, await store.listRules(signal.projectId));
      if (!groupedOf.has(signal.projectId)) groupedOf.set(signal.projectId, new Set((await store.listChannels(signal.projectId)).filter((c) => c.kind !== "pagerduty").map((c) => c.id)));
      const key = incidentKeyOf(signal);
      const open = key === null ? [] : await store.openIncidentChannels(signal.projectId, key);
      const byRules = routeSignal(signal, rulesOf.get(signal.projectId)!);
      const routed = routeIncident(signal, byRules, open);
      const updates = key === null ? [] : routeUpdates(signal, byRules, open);
      const now = this.clock();
      const storm = routed.length > 0 && signal.kind.startsWith("storm_") ? await this.deps.storm(signal.projectId, signal.sourceId) : null;
      const deliveries = routed.map(({ ruleId, channelId, condition }) => {
        const alert = shapeAlert(signal, condition, this.deps.baseUrl, storm);
        const delivery = pendingDelivery(signal.projectId, alert, channelId, ruleId, now);
        // Slack and webhooks group what fires together: a first try waits the group wait, and takes the
        // others along. PagerDuty is not grouped: each event is one incident under its own dedup_key.
        return groupedOf.get(signal.projectId)!.has(channelId) ? { ...delivery, nextAttemptAt: now + (this.deps.groupWaitMs ?? 0) } : delivery;
      });
      if (updates.length > 0) deliveries.push(...(await this.updateDeliveries(signal, key!, updates, now)));
      await store.fanOut(signal.id, deliveries, now);
      if (deliveries.length > 0) this.warnOfDeadLinks();
    }
  }

  /**
   * A later signal of an incident open on these channels (a run blocked again): the incident
   * changed. A channel whose trigger or last update has not gone out yet gets that one rewritten
   * with the new count (so a burst of refusals within the group wait is one trigger that says how
   * many); else a new update, after the group wait (and at the channel's pace), as Alertmanager
   * tells a group's change.
   */
  private async updateDeliveries(signal: AlertSignal, key: string, updates: ReturnType<typeof routeUpdates>, now: number) {
    const { store } = this.deps;
    const since = await store.lastResolvedAt(signal.projectId, key);
    // Counted up to this signal (in the order signals are processed): each later one says one more, never the same twice.
    const upTo = (s: AlertSignal) => s.at < signal.at || (s.at === signal.at && s.id <= signal.id);
    const count = signal.runId ? (await store.runSignals(signal.projectId, signal.runId, since)).filter((s) => upTo(s) && incidentKeyOf(s) === key).length : 1;
    const out: ReturnType<typeof pendingDelivery>[] = [];
    for (const { ruleId, channelId, condition } of updates) {
      const shaped = shapeAlert(signal, condition, this.deps.baseUrl, null);
      const waiting = await store.untriedFor(channelId, key);
      if (waiting) {
        const was = JSON.parse(waiting.alert) as Alert;
        const refreshed = { ...countedAlert(shaped, count, was.type.endsWith(".updated")), id: was.id, at: was.at };
        if (await store.rewriteUntried(waiting.id, JSON.stringify(refreshed))) continue;
      }
      const delivery = pendingDelivery(signal.projectId, countedAlert(shaped, count, true), channelId, ruleId, now);
      out.push({ ...delivery, nextAttemptAt: now + (this.deps.groupWaitMs ?? 0) });
    }
    return out;
  }

  private warnedOfDeadLinks = false;

  /**
   * Said once, when the first alert goes out without a public URL to link to: not at every start,
   * where a server with no alert channel has nothing to act on (Settings → Alerts says it too, and
   * adding a channel asks the admin to confirm).
   */
  private warnOfDeadLinks(): void {
    if (this.deps.baseUrl || this.warnedOfDeadLinks) return;
    this.warnedOfDeadLinks = true;
    console.warn("[idemgate] alerts are going out with relative links, which Slack, PagerDuty and webhook receivers cannot open: set IDEMGATE_PUBLIC_URL (or BETTER_AUTH_URL)");
  }

  /**
   * Due deliveries, one lane per channel: a channel's deliveries go out one after another at its
   * service's pace, channels side by side, so one hanging receiver delays only its own alerts. A
   * channel whose lane is still running is left to it. Resolves when the lanes it started end.
   */
  async deliverDue(): Promise<void> {
    await Promise.all(await this.startLanes());
  }

  private async startLanes(): Promise<Promise<void>[]> {
    const due = await this.deps.store.dueDeliveries(this.clock(), DELIVERY_BATCH);
    const byChannel = new Map<string, { projectId: string; ids: string[] }>();
    for (const { id, projectId, channelId } of due) {
      const lane = byChannel.get(channelId) ?? { projectId, ids: [] };
      lane.ids.push(id);
      byChannel.set(channelId, lane);
    }
    const started: Promise<void>[] = [];
    for (const [channelId, { projectId, ids }] of byChannel) {
      if (this.lanes.has(channelId)) continue;
      const lane = this.runLane(projectId, channelId, ids)
        // The store failed mid-lane: what was claimed goes back when its lease runs out.
        .catch((error: unknown) => console.warn(`[idemgate] alert delivery to ${channelId} failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => this.lanes.delete(channelId));
      this.lanes.set(channelId, lane);
      started.push(lane);
    }
    return started;
  }

  /**
   * One channel's lane. Slack groups (Alertmanager's group_wait and group_interval): the first
   * delivery is due once its group wait is over, and goes out with every other one of the channel
   * not yet tried, as one message; what arrives meanwhile goes out one pace later, together.
   * Webhooks group too, but a group is fixed once formed (its followers are parked under its first
   * delivery), so every retry and redelivery sends the same body under the same webhook-id.
   * PagerDuty sends one delivery per request (an event is one incident).
   */
  private async runLane(projectId: string, channelId: string, ids: string[]): Promise<void> {
    const channel = await this.deps.store.findChannel(projectId, channelId);
    if (channel?.kind === "slack") {
      for (let groups = 0; groups < MAX_GROUPS_PER_LANE; groups++) {
        await this.waitForPace(channelId);
        const group = await this.deps.store.groupable(channelId, this.clock(), SLACK_GROUP_MAX);
        if (group.length === 0) return;
        await this.deliverGroup(group, true);
      }
      return;
    }
    for (const id of ids) {
      await this.waitForPace(channelId);
      if (channel?.kind === "webhook") await this.deliverWebhookGroup(id, await this.deps.store.groupable(channelId, this.clock(), WEBHOOK_GROUP_MAX));
      else await this.deliverGroup([id], false);
    }
  }

  /**
   * A webhook delivery that is due leads a group: untried ones of its channel written within its
   * group wait are parked under it (once: a retry keeps the group it had), sent in one request under
   * its id, and settled with it. One already parked under another leader is not claimable.
   */
  private async deliverWebhookGroup(leaderId: string, candidates: string[]): Promise<void> {
    const { store } = this.deps;
    const leader = await store.claim(leaderId, this.owner, this.clock(), this.deps.leaseMs);
    if (!leader) return;
    const others = candidates.filter((id) => id !== leaderId).slice(0, WEBHOOK_GROUP_MAX - 1);
    // Only a first try forms a group: a retried single must not take in new alerts under its id.
    const followers = await store.parkFollowers(leader.id, leader.attempts === 0 ? others : [], leader.nextAttemptAt, this.clock());
    await this.finish([leader, ...followers], true);
  }

  private async waitForPace(channelId: string): Promise<void> {
    const wait = (this.nextSendAt.get(channelId) ?? 0) - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** Claims what it can of `ids` and sends it in one request; every claimed delivery records the attempt. */
  private async deliverGroup(ids: string[], untried: boolean): Promise<void> {
    const { store, backoff } = this.deps;
    const claimed: AlertDeliveryRow[] = [];
    for (const id of ids) {
      const delivery = await store.claim(id, this.owner, this.clock(), this.deps.leaseMs, untried);
      if (delivery) claimed.push(delivery);
    }
    if (claimed.length === 0) return;
    await this.finish(claimed, false);
  }

  /**
   * Sends `deliveries` as one request and records the attempt: on each of them, or (`parked`: a
   * webhook group) on the first, whose followers settle with it in the same transaction.
   */
  private async finish(deliveries: AlertDeliveryRow[], parked: boolean): Promise<void> {
    const { store, backoff } = this.deps;
    const claimed = deliveries;
    // Whatever goes wrong before an answer is an attempt that failed: a throw here would keep the lease and log nothing.
    const { status, error, retryAfter = null } = await this.send(claimed).catch((reason: unknown) => ({ status: null, error: `not sent: ${reason instanceof Error ? reason.message : String(reason)}`, retryAfter: null }));
    const now = this.clock();
    for (const delivery of parked ? claimed.slice(0, 1) : claimed) {
      const attempts = delivery.attempts + 1;
      const outcome = error === "channel removed" ? "failed" : attemptOutcome(status, attempts, backoff);
      const logOf = (id: string) => ({ id: newId("ala", now), deliveryId: id, projectId: delivery.projectId, at: now, outcome, statusCode: status, error });
      await store.finishAttempt(delivery.id, this.owner, {
        status: outcome === "retry" ? "pending" : outcome,
        attempts,
        // A receiver that said when to come back (429/503 with Retry-After) is heard, within a bound.
        nextAttemptAt: outcome === "retry" ? now + (retryAfterMs(status, retryAfter, now) ?? retryDelayMs(attempts, backoff)) : now,
        lastCode: status,
        lastError: error,
        deliveredAt: outcome === "delivered" ? now : null,
        log: logOf(delivery.id),
        ...(parked ? { followers: claimed.slice(1).map((follower) => logOf(follower.id)) } : {}),
      });
    }
  }

  /** One attempt of one request (a group of Slack alerts, else one delivery): the HTTP status (and a Retry-After, if any), or null and why there was none. */
  private async send(deliveries: AlertDeliveryRow[]): Promise<{ status: number | null; error: string | null; retryAfter?: string | null }> {
    const first = deliveries[0]!;
    const channel = await this.deps.store.findChannel(first.projectId, first.channelId);
    if (!channel) return { status: null, error: "channel removed" };
    let secrets: ReturnType<typeof openSecrets>;
    try {
      secrets = openSecrets(this.deps.box, channel);
    } catch {
      // A claimed delivery that threw here kept its lease and logged nothing, again at every claim
      // (two instances with their own keys). Logged as a retryable attempt, the lease goes back, so
      // an instance holding the right key sends it; boot's key check (shared-keys.ts) stops this earlier.
      return { status: null, error: "this instance cannot open the channel's secrets: every instance needs the same IDEMGATE_SECRETS_KEY" };
    }
    const alerts = deliveries.map((delivery) => JSON.parse(delivery.alert) as Alert);
    const now = this.clock();
    const group =
      deliveries.length < 2
        ? undefined
        : channel.kind === "webhook"
          ? { type: "alert.group", body: JSON.stringify(webhookGroupBody(deliveries.map((delivery, i) => ({ deliveryId: delivery.id, alert: alerts[i]! })), now)) }
          : { type: "alert.group", body: JSON.stringify(slackGroupBody(alerts)) };
    const { headers, body } = channelRequest(channel, secrets, alerts[0]!, first.id, now, group);
    // The lane waits for this slot before it claims the next delivery (so the wait never eats a lease).
    // Counted from the answer too: a first request slow on the way must not bring the next one closer.
    const book = () => this.nextSendAt.set(channel.id, Date.now() + CHANNEL_PACE_MS[channel.kind]);
    book();
    try {
      const response = await this.deps.fetch(first.projectId, secrets.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.deps.timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      book();
      return { status: response.status, error: response.ok ? null : `HTTP ${response.status}`, retryAfter: response.headers.get("retry-after") };
    } catch (error) {
      if (error instanceof OutboundRefusedError) return { status: null, error: `refused by the outbound allowlist: ${error.message}` };
      const name = error instanceof Error ? error.name : "";
      if (name === "TimeoutError" || name === "AbortError") return { status: null, error: `no answer within ${this.deps.timeoutMs} ms` };
      return { status: null, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
