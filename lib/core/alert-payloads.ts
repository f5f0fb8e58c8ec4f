/**
 * What each receiver is sent for an alert, pure: Slack's incoming-webhook body (one alert or a
 * group, escaped), PagerDuty Events v2, and the generic signed webhook's JSON.
 */
import type { Alert, AlertSeverity } from "./alerts";

const SLACK_ICON: Record<AlertSeverity, string> = { critical: ":red_circle:", error: ":rotating_light:", warning: ":warning:", info: ":information_source:" };

/** A Slack incoming webhook's body: one readable line of what and where, the figures, and the link. */
export function slackBody(alert: Alert): Record<string, unknown> {
  const icon = alert.action === "resolve" ? ":white_check_mark:" : SLACK_ICON[alert.severity];
  const text = `${icon} *${slackEscape(alert.title)}*\n${slackEscape(alert.summary)}\n<${slackEscape(alert.link)}|Open in Idemgate>`;
  const tool = alert.tool ? ` · tool \`${slackEscape(alert.tool)}\`` : "";
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      { type: "context", elements: [{ type: "mrkdwn", text: `project \`${slackEscape(alert.projectId)}\`${tool} · ${alert.condition}` }] },
    ],
  };
}

/**
 * Slack's three control characters as its docs say to escape them. Titles and summaries carry text
 * an agent chose (tool names, run ids): unescaped, a tool named `x<!channel>` would ping the whole
 * channel, and `<https://evil|Open>` would plant a link.
 */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** At most this many alerts in one grouped Slack message (a section block each, under Slack's 50). */
export const SLACK_GROUP_MAX = 20;
/** A grouped alert's summary in Slack, so that its section block stays under Slack's 3,000 characters. */
const SLACK_SUMMARY_MAX = 2_000;

/**
 * Alerts of one channel that fired together, as one Slack message (Alertmanager's grouping): a
 * line that says how many, then each alert's line, title, summary and link, escaped like any
 * Slack text. A burst of twenty storms is one post, not twenty in 200 ms.
 */
export function slackGroupBody(alerts: readonly Alert[]): Record<string, unknown> {
  if (alerts.length === 1) return slackBody(alerts[0]!);
  const firing = alerts.filter((alert) => alert.action === "trigger").length;
  const resolved = alerts.length - firing;
  const counts = [firing > 0 ? `${firing} firing` : null, resolved > 0 ? `${resolved} resolved` : null].filter(Boolean).join(", ");
  const head = `:bell: *${alerts.length} alerts in project \`${slackEscape(alerts[0]!.projectId)}\`* (${counts})`;
  const lines = alerts.map((alert) => {
    const icon = alert.action === "resolve" ? ":white_check_mark:" : SLACK_ICON[alert.severity];
    // Only the summary is cut (never our link): each line stays within a section block's 3,000 characters.
    const summary = slackEscape(alert.summary);
    const cut = summary.length > SLACK_SUMMARY_MAX ? `${summary.slice(0, SLACK_SUMMARY_MAX)}…` : summary;
    return `${icon} *${slackEscape(alert.title).slice(0, 300)}*\n${cut}\n<${slackEscape(alert.link)}|Open in Idemgate>`;
  });
  return {
    text: [head, ...lines].join("\n"),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: head } },
      ...lines.map((line) => ({ type: "section", text: { type: "mrkdwn", text: line } })),
    ],
  };
}

/** PagerDuty Events API v2: `trigger` with the alert, or `resolve` (only the key is needed). */
export function pagerDutyBody(alert: Alert, routingKey: string): Record<string, unknown> {
  if (alert.action === "resolve") return { routing_key: routingKey, event_action: "resolve", dedup_key: alert.dedupKey };
  return {
    routing_key: routingKey,
    event_action: "trigger",
    dedup_key: alert.dedupKey,
    payload: {
      summary: `${alert.title}: ${alert.summary}`.slice(0, 1024),
      source: "idemgate",
      severity: alert.severity,
      timestamp: new Date(alert.at).toISOString(),
      component: alert.tool ?? undefined,
      group: alert.projectId,
      class: alert.condition,
      custom_details: alert.data,
    },
    links: [{ href: alert.link, text: "Open in Idemgate" }],
  };
}

/** The generic webhook's body: the storm webhook's `{type, sentAt, data}`, plus Standard Webhooks' `timestamp` and the alert. */
export function webhookBody(alert: Alert, sentAt: number): Record<string, unknown> {
  const iso = new Date(sentAt).toISOString();
  const { data, ...about } = alert;
  return { type: alert.type, timestamp: iso, sentAt: iso, data, alert: about };
}

/** At most this many alerts in one grouped webhook request. */
export const WEBHOOK_GROUP_MAX = 20;

/**
 * Alerts of one webhook channel that fired together, as one signed request (Alertmanager's
 * grouping, as for Slack): `type: "alert.group"` and, in `data.alerts`, each alert's own body
 * (what it would have been sent alone) with its delivery id, so a receiver can still tell the alerts
 * apart and drop one it already had. The request's webhook-id is the group's (its first delivery's).
 */
export function webhookGroupBody(members: readonly { deliveryId: string; alert: Alert }[], sentAt: number): Record<string, unknown> {
  const iso = new Date(sentAt).toISOString();
  const firing = members.filter((member) => member.alert.action === "trigger").length;
  return {
    type: "alert.group",
    timestamp: iso,
    sentAt: iso,
    data: {
      projectId: members[0]?.alert.projectId ?? null,
      firing,
      resolved: members.length - firing,
      alerts: members.map((member) => ({ deliveryId: member.deliveryId, ...webhookBody(member.alert, sentAt) })),
    },
  };
}
