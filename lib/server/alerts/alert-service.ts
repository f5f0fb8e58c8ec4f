import { TIMED_CONDITIONS } from "../../core/alerts";
import { testAlert } from "../../core/alert-shape";
import type { CreateAlertChannel, CreateAlertRule } from "../../contract/alerts";
import type { AlertAttemptRow, AlertChannelRow, AlertDeliveryRow, AlertRuleRow, AlertStore } from "../../store/ports/alert-store";
import { AppError } from "../app-error";
import { newId } from "../ids";
import { type Actor, auditEntry } from "../operators/operator-audit";
import { type AssertAllowed, assertRegistrable } from "../outbound/registration-check";
import type { SecretBox } from "../gateways/upstreams/secret-box";
import { PAGERDUTY_EVENTS_URL, displayTarget, newSigningSecret, sealSecrets, shownChannel } from "./alert-channels";
import { pendingDelivery } from "./pending-delivery";

/** The absolute base of links in alerts, or null when the install has none (links would be relative). */
export function publicUrlOf(baseUrl: string): string | null {
  return /^https?:\/\//.test(baseUrl) ? baseUrl : null;
}

/** Minutes a timed rule waits when the admin names none. */
export const DEFAULT_TIMED_MINUTES = 15;

export interface AlertServiceDeps {
  store: AlertStore;
  box: SecretBox;
  /** The outbound allowlist: a channel's URL must pass it when it is added (and again on every send). */
  assertAllowed: AssertAllowed;
  baseUrl: string;
  /** Asks the delivery worker to run soon (a test alert should not wait a whole interval). */
  kick?: () => void;
  clock?: () => number;
}

export interface DeliveryWithLog {
  delivery: AlertDeliveryRow;
  log: AlertAttemptRow[];
}

/** An admin's alert channels and rules (each change audited), test alerts and the delivery log. */
export class AlertService {
  private readonly clock: () => number;

  constructor(private readonly deps: AlertServiceDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  async list(projectId: string): Promise<{ channels: AlertChannelRow[]; rules: AlertRuleRow[]; publicUrl: string | null }> {
    const [channels, rules] = await Promise.all([this.deps.store.listChannels(projectId), this.deps.store.listRules(projectId)]);
    return { channels: channels.map((channel) => shownChannel(this.deps.box, channel)), rules, publicUrl: publicUrlOf(this.deps.baseUrl) };
  }

  async addChannel(projectId: string, input: CreateAlertChannel, actor: Actor): Promise<{ channel: AlertChannelRow; signingSecret?: string }> {
    const deadLinks = publicUrlOf(this.deps.baseUrl) === null;
    if (deadLinks && input.allowDeadLinks !== true) {
      // Links in alerts would be relative: Slack and PagerDuty show them and nobody can open them, silently.
      const message = "this install has no public URL (set IDEMGATE_PUBLIC_URL): the links in this channel's alerts could not be opened; send allowDeadLinks: true to add it anyway";
      throw new AppError("invalid_input", message, { issues: [{ path: ["allowDeadLinks"], message, code: "custom" }] });
    }
    const now = this.clock();
    const id = newId("ach", now);
    const url = input.kind === "pagerduty" ? (input.url ?? PAGERDUTY_EVENTS_URL) : input.url;
    await assertRegistrable(this.deps.assertAllowed, projectId, url, "url");
    const signingSecret = input.kind === "webhook" ? (input.signingSecret ?? newSigningSecret()) : undefined;
    const secrets = { url, ...(input.kind === "pagerduty" ? { routingKey: input.routingKey } : {}), ...(signingSecret ? { signingSecret } : {}) };
    const channel: AlertChannelRow = {
      id,
      projectId,
      name: input.name,
      kind: input.kind,
      target: displayTarget(this.deps.box, secrets),
      secretEnc: sealSecrets(this.deps.box, id, secrets),
      createdAt: now,
      createdBy: actor.label,
    };
    const audit = auditEntry(actor, projectId, "alert_channel.added", { type: "alert_channel", id }, { name: channel.name, kind: channel.kind, target: channel.target, ...(deadLinks ? { allowDeadLinks: true } : {}) }, now);
    await this.deps.store.addChannel(channel, audit);
    // Shown once: a secret the admin supplied is not echoed back.
    return { channel, ...(input.kind === "webhook" && !input.signingSecret ? { signingSecret } : {}) };
  }

  async removeChannel(projectId: string, channelId: string, actor: Actor): Promise<AlertChannelRow> {
    const now = this.clock();
    const audit = auditEntry(actor, projectId, "alert_channel.removed", { type: "alert_channel", id: channelId }, null, now);
    const removed = await this.deps.store.removeChannel(projectId, channelId, audit);
    if (!removed) throw new AppError("not_found", `no alert channel ${channelId} in this project`);
    return shownChannel(this.deps.box, removed);
  }

  async addRule(projectId: string, input: CreateAlertRule, actor: Actor): Promise<AlertRuleRow> {
    const channels = new Set((await this.deps.store.listChannels(projectId)).map((channel) => channel.id));
    const unknown = input.channelIds.filter((id) => !channels.has(id));
    if (unknown.length > 0) {
      const message = `no alert channel ${unknown.join(", ")} in this project`;
      throw new AppError("invalid_input", message, { issues: [{ path: ["channelIds"], message, code: "custom" }] });
    }
    const now = this.clock();
    const timed = TIMED_CONDITIONS.includes(input.condition);
    const rule: AlertRuleRow = {
      id: newId("arl", now),
      projectId,
      condition: input.condition,
      tool: input.tool ?? null,
      minutes: timed ? (input.minutes ?? DEFAULT_TIMED_MINUTES) : null,
      channelIds: [...new Set(input.channelIds)],
      createdAt: now,
      createdBy: actor.label,
    };
    const audit = auditEntry(actor, projectId, "alert_rule.added", { type: "alert_rule", id: rule.id }, { condition: rule.condition, tool: rule.tool, minutes: rule.minutes, channelIds: rule.channelIds }, now);
    await this.deps.store.addRule(rule, audit);
    return rule;
  }

  async removeRule(projectId: string, ruleId: string, actor: Actor): Promise<AlertRuleRow> {
    const now = this.clock();
    const audit = auditEntry(actor, projectId, "alert_rule.removed", { type: "alert_rule", id: ruleId }, null, now);
    const removed = await this.deps.store.removeRule(projectId, ruleId, audit);
    if (!removed) throw new AppError("not_found", `no alert rule ${ruleId} in this project`);
    return removed;
  }

  /**
   * Queues one test alert to the channel; the worker sends it like any other (retries, log). It
   * makes the server call out, so it is audited with the delivery it queued, in one transaction.
   */
  async sendTest(projectId: string, channelId: string, actor: Actor): Promise<AlertDeliveryRow> {
    const channel = await this.deps.store.findChannel(projectId, channelId);
    if (!channel) throw new AppError("not_found", `no alert channel ${channelId} in this project`);
    const now = this.clock();
    const id = newId("alr", now);
    const alert = testAlert(`sig_test_${id}`, projectId, this.deps.baseUrl, now);
    const delivery = pendingDelivery(projectId, alert, channelId, null, now, id);
    const shown = shownChannel(this.deps.box, channel);
    const detail = { deliveryId: id, name: shown.name, kind: shown.kind, target: shown.target };
    await this.deps.store.insertDelivery(delivery, auditEntry(actor, projectId, "alert_channel.tested", { type: "alert_channel", id: channelId }, detail, now));
    this.deps.kick?.();
    return delivery;
  }

  async deliveries(projectId: string, limit: number): Promise<DeliveryWithLog[]> {
    const rows = await this.deps.store.listDeliveries(projectId, limit);
    const attempts = await this.deps.store.listAttempts(projectId, rows.map((row) => row.id));
    return rows.map((delivery) => ({ delivery, log: attempts.filter((attempt) => attempt.deliveryId === delivery.id) }));
  }
}
