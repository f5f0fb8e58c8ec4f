/**
 * Alerts, pure: which conditions a signal meets and which rules send it where (the alert it
 * becomes: alert-shape.ts; each channel's body: alert-payloads.ts). No I/O: the dispatcher (lib/server/alerts) reads
 * signals and rules, and sends what these functions shape.
 */

export const ALERT_CONDITIONS = [
  "storm_opened",
  "storm_closed",
  "dedup_rate",
  "loop_blocked",
  "budget_exceeded",
  "lease_lost",
  "verify_unresolved",
  "approval_pending",
  "compensation_failed",
] as const;
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];

/** Conditions that fire only after something has waited this many minutes. */
export const TIMED_CONDITIONS: readonly AlertCondition[] = ["verify_unresolved", "approval_pending"];

/**
 * Conditions that close, besides storms (whose close is a signal of its own): the dispatcher looks
 * at each one it alerted on and, once the thing is settled, raises its resolve (PagerDuty `resolve`
 * under the trigger's dedup_key). A verify is answered or resolved by an operator; a resend request
 * is approved, denied or expired; an operator raises the run's budget; a failed undo is retried or
 * resolved by hand; a looping run is aborted or moves on (a later begin of the run is not blocked).
 * lease_lost is a moment, not a state: it stays for a human to close.
 */
export const CLOSABLE_CONDITIONS: readonly AlertCondition[] = ["verify_unresolved", "approval_pending", "budget_exceeded", "loop_blocked", "compensation_failed"];

/** The id of the signal that resolves `triggerId`: one per trigger, whoever raises it first. */
export function resolveSignalId(triggerId: string): string {
  return `${triggerId}_resolved`;
}

/** The signal that closes what `trigger` opened: same kind, tool and detail (so the same rules route it), marked `resolves`. */
export function resolveSignal(trigger: AlertSignal, now: number): AlertSignal {
  return { ...trigger, id: resolveSignalId(trigger.id), detail: { ...(trigger.detail ?? {}), resolves: trigger.id, resolvedAt: now }, at: now };
}

/** The condition of a signal that can close, if any. */
export function closableCondition(signal: AlertSignal): AlertCondition | null {
  return conditionsOf(signal).find((condition) => CLOSABLE_CONDITIONS.includes(condition)) ?? null;
}

export const ALERT_CHANNEL_KINDS = ["slack", "pagerduty", "webhook"] as const;
export type AlertChannelKind = (typeof ALERT_CHANNEL_KINDS)[number];

export type SignalKind = "event" | "storm_opened" | "storm_closed" | "verify_unresolved" | "approval_pending" | "test";

/** One row of the alerts' outbox. */
export interface AlertSignal {
  id: string;
  projectId: string;
  kind: SignalKind;
  sourceId: string;
  tool: string | null;
  runId: string | null;
  callId: string | null;
  detail: Record<string, unknown> | null;
  at: number;
}

export interface AlertRuleSpec {
  id: string;
  condition: AlertCondition;
  tool: string | null;
  minutes: number | null;
  channelIds: string[];
}

export type AlertAction = "trigger" | "resolve";
export type AlertSeverity = "critical" | "error" | "warning" | "info";

/** What every channel is sent, shaped per channel by the body functions below. */
export interface Alert {
  /** The signal's id: the same for every channel and every retry. */
  id: string;
  /** `storm.opened`, `storm.closed` (the storm webhook's types), else `alert.<condition>`. */
  type: string;
  condition: AlertCondition;
  action: AlertAction;
  projectId: string;
  tool: string | null;
  title: string;
  summary: string;
  severity: AlertSeverity;
  /** The storm, call or run page; absolute when the install knows its public URL. */
  link: string;
  /** PagerDuty's dedup_key, shared by a trigger and its resolve (see dedupKeyOf). */
  dedupKey: string;
  at: number;
  /** The storm (as the storms API gives it) or the event's fields. */
  data: Record<string, unknown>;
  test?: boolean;
}

/** The conditions a signal meets (a storm opened by the baseline rule is also a dedup rate above baseline). */
export function conditionsOf(signal: AlertSignal): AlertCondition[] {
  const detail = signal.detail ?? {};
  switch (signal.kind) {
    case "storm_opened":
      return detail.rule === "absolute" ? ["storm_opened"] : ["storm_opened", "dedup_rate"];
    case "storm_closed":
      return detail.rule === "absolute" ? ["storm_closed"] : ["storm_closed", "dedup_rate"];
    case "verify_unresolved":
      return ["verify_unresolved"];
    case "approval_pending":
      return ["approval_pending"];
    case "test":
      return [];
    case "event": {
      if (detail.type === "lease_lost") return ["lease_lost"];
      if (detail.type === "begin" && detail.decision === "blocked") return [blockedReason(detail) === "budget_exceeded" ? "budget_exceeded" : "loop_blocked"];
      if (detail.type === "complete" && detail.decision === "failed") return ["compensation_failed"];
      return [];
    }
  }
}

/** A blocked begin's reason, from its event detail (`{loop: …}` or `{reason: "budget_exceeded", …}`). */
function blockedReason(detail: Record<string, unknown>): string {
  const inner = parseDetail(detail.detail);
  if (inner && typeof inner.reason === "string") return inner.reason;
  if (inner && typeof inner.budget === "object" && inner.budget !== null) return "budget_exceeded";
  return "loop_detected";
}

export function parseDetail(value: unknown): Record<string, unknown> | null {
  if (typeof value === "object" && value !== null) return value as Record<string, unknown>;
  if (typeof value !== "string") return null;
  try {
    const parsed = JSON.parse(value) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export interface Routed {
  ruleId: string | null;
  channelId: string;
  condition: AlertCondition;
}

/**
 * Where a signal goes: every rule whose condition it meets (and whose tool, if any, is the
 * signal's) sends it to its channels; a channel named by several rules gets it once, under the
 * first rule. Timed signals carry the rule that raised them, and only that rule routes them.
 */
export function routeSignal(signal: AlertSignal, rules: readonly AlertRuleSpec[]): Routed[] {
  const met = new Set(conditionsOf(signal));
  const raisedBy = typeof signal.detail?.ruleId === "string" ? signal.detail.ruleId : null;
  const routed = new Map<string, Routed>();
  for (const rule of rules) {
    if (!met.has(rule.condition)) continue;
    if (TIMED_CONDITIONS.includes(rule.condition) && raisedBy !== rule.id) continue;
    if (rule.tool !== null && rule.tool !== signal.tool) continue;
    for (const channelId of rule.channelIds) {
      if (!routed.has(channelId)) routed.set(channelId, { ruleId: rule.id, channelId, condition: rule.condition });
    }
  }
  return [...routed.values()];
}

/** A channel that was told an incident fired and has not been told it resolved. */
export interface OpenIncidentChannel {
  channelId: string;
  ruleId: string | null;
  condition: AlertCondition;
}

/** The incident a signal is about: its dedup_key (the run's loop, the run's budget, the storm; else the signal). */
export function incidentKeyOf(signal: AlertSignal): string | null {
  const condition = conditionsOf(signal)[0];
  if (condition === undefined) return null;
  const resolves = typeof signal.detail?.resolves === "string" ? signal.detail.resolves : null;
  return dedupKeyOf(signal, condition, resolves);
}

/**
 * Alerts about incidents, not events (Alertmanager's way): a trigger goes only to the channels not
 * already told this incident is open (a run blocked five times pages once); a resolve goes to every
 * channel told it fired (send_resolved by default), whatever its rules say, and to no channel that
 * never heard the trigger. A storm's close is also a signal of its own: channels with a
 * `storm_closed` rule still get it.
 */
export function routeIncident(signal: AlertSignal, routed: readonly Routed[], open: readonly OpenIncidentChannel[]): Routed[] {
  const told = new Set(open.map((channel) => channel.channelId));
  const resolving = signal.kind === "storm_closed" || typeof signal.detail?.resolves === "string";
  if (!resolving) return routed.filter((route) => !told.has(route.channelId));
  const out = new Map<string, Routed>();
  for (const channel of open) out.set(channel.channelId, { ruleId: channel.ruleId, channelId: channel.channelId, condition: channel.condition });
  if (signal.kind === "storm_closed") for (const route of routed) if (!out.has(route.channelId)) out.set(route.channelId, route);
  return [...out.values()];
}

/**
 * Conditions whose incident gathers signal after signal (a run's loop, a run's budget): a later one
 * changes the open incident (its count grows), which its channels are told as an update of the same
 * incident, not as a new one. A storm is one signal per opening; the others are one per thing.
 */
export const UPDATABLE_CONDITIONS: readonly AlertCondition[] = ["loop_blocked", "budget_exceeded"];

/**
 * Channels a later signal of an open incident updates: those told it is open (a trigger that has
 * not been resolved there) whose rules still route the signal, for conditions that gather.
 */
export function routeUpdates(signal: AlertSignal, routed: readonly Routed[], open: readonly OpenIncidentChannel[]): Routed[] {
  if (signal.kind === "storm_closed" || typeof signal.detail?.resolves === "string") return [];
  const told = new Set(open.map((channel) => channel.channelId));
  return routed.filter((route) => told.has(route.channelId) && UPDATABLE_CONDITIONS.includes(route.condition));
}

/**
 * PagerDuty's dedup_key, the same for a trigger and its resolve: one incident per storm (opened and
 * closed share it), per run for budgets and loops (an agent refused again and again in one run pages
 * once), else per signal.
 */
export function dedupKeyOf(signal: AlertSignal, condition: AlertCondition, resolves: string | null): string {
  const prefix = `idemgate:${signal.projectId}`;
  if (signal.kind === "storm_opened" || signal.kind === "storm_closed") return `${prefix}:storm:${signal.sourceId}`;
  if ((condition === "budget_exceeded" || condition === "loop_blocked") && signal.runId) return `${prefix}:${condition === "budget_exceeded" ? "budget" : "loop"}:${signal.runId}`;
  return `${prefix}:${resolves ?? signal.id}`;
}
