import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { pagerDutyBody, slackBody, webhookBody } from "../../core/alert-payloads";
import type { Alert } from "../../core/alerts";
import { channelTargetShown, originOf } from "../../core/url-credentials";
import type { AlertChannelRow } from "../../store/ports/alert-store";
import type { SecretBox } from "../gateways/upstreams/secret-box";

export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";

/** What a channel's sealed secret holds. */
export interface ChannelSecrets {
  url: string;
  routingKey?: string;
  signingSecret?: string;
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

export function sealSecrets(box: SecretBox, channelId: string, secrets: ChannelSecrets): string {
  return box.seal(JSON.stringify(secrets), `alert_channel:${channelId}`);
}

export function openSecrets(box: SecretBox, channel: AlertChannelRow): ChannelSecrets {
  return JSON.parse(box.open(channel.secretEnc, `alert_channel:${channel.id}`)) as ChannelSecrets;
}

/**
 * What operators, the audit log and its export may see of a channel: the URL's scheme and host
 * (Slack's path is a token; many webhook receivers, Discord's among them, put theirs in the path
 * too) and a keyed fingerprint of the sealed URL and routing key, to tell channels to one host apart.
 */
export function displayTarget(box: SecretBox, secrets: ChannelSecrets): string {
  const fingerprint = box.fingerprint(JSON.stringify([secrets.url, secrets.routingKey ?? null]), "alert_channel");
  return `${originOf(secrets.url)} (fingerprint ${fingerprint})`;
}

/** A channel as it may be shown: its display worked out from its sealed URL, also for rows stored before #43. */
export function shownChannel(box: SecretBox, channel: AlertChannelRow): AlertChannelRow {
  let target: string;
  try {
    target = displayTarget(box, openSecrets(box, channel));
  } catch {
    // Sealed under another install's key: the stored display, without any path it may still hold.
    target = channelTargetShown(channel.target);
  }
  return { ...channel, target };
}

/**
 * The request a channel gets for an alert: Slack's and PagerDuty's JSON, or a Standard Webhooks
 * signed POST. `group` is the body of several alerts sent as one (Slack, webhooks), signed like any.
 */
export function channelRequest(
  channel: AlertChannelRow,
  secrets: ChannelSecrets,
  alert: Alert,
  deliveryId: string,
  now: number,
  group?: { body: string; type: string },
): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "idemgate-alerts" };
  if (channel.kind === "slack") return { headers, body: group?.body ?? JSON.stringify(slackBody(alert)) };
  if (channel.kind === "pagerduty") return { headers, body: JSON.stringify(pagerDutyBody(alert, secrets.routingKey ?? "")) };
  const body = group?.body ?? JSON.stringify(webhookBody(alert, now));
  const timestamp = new Date(Math.floor(now / 1000) * 1000);
  const signature = new Webhook(secrets.signingSecret ?? "").sign(deliveryId, timestamp, body);
  return {
    headers: {
      ...headers,
      "webhook-id": deliveryId,
      "webhook-timestamp": String(Math.floor(now / 1000)),
      "webhook-signature": signature,
      // The storm webhook's header, kept for its receivers.
      "x-idemgate-event": group?.type ?? alert.type,
    },
    body,
  };
}
