import { AlertRuleSchema, CreatedAlertChannelSchema } from "../../lib/contract/alerts";
import { OutboundAllowlistEntrySchema } from "../../lib/contract/outbound";
import { AlertDispatcher } from "../../lib/server/alerts/alert-dispatcher";
import { createOutbound } from "../../lib/server/outbound/outbound-context";
import { SecretBox } from "../../lib/server/gateways/upstreams/secret-box";
import { PrismaAlertRepository } from "../../lib/store/prisma/alert-repository";
import type { openDb } from "../../lib/store/prisma/client";
import { OperatorClient, ROOT, createOperator } from "./operator-client";

/** Server env for tests that receive alerts: the delivery worker runs every 200 ms. */
/** The PagerDuty routing key the test receivers expect, and the secrets key the alert tests' servers seal channel secrets with. */
export const ROUTING_KEY = "R0UT1NGKEY0123456789abcdef012345";
export const SECRETS_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

export const FAST_ALERTS_ENV: Record<string, string> = { IDEMGATE_ALERT_INTERVAL_MS: "200", IDEMGATE_ALERT_BACKOFF_MS: "200" };

/**
 * What IDEMGATE_STORM_WEBHOOK_URL used to do, through Settings → Alerts: the receiver's port on the
 * allowlist, a webhook channel to `url`, and rules for storms opened and closed. Answers the
 * channel's signing secret. The server needs OPERATOR_ENV.
 */
export async function subscribeStormWebhook(baseUrl: string, projectId: string, url: string): Promise<string> {
  const root = await OperatorClient.signIn(baseUrl, ROOT.email, ROOT.password);
  const admin = await createOperator(root, projectId, "admin", "storm-alerts");
  await admin.call(OutboundAllowlistEntrySchema, "POST", admin.p(projectId, "/outbound-allowlist"), { pattern: `127.0.0.1:${new URL(url).port}` });
  const channel = await admin.call(CreatedAlertChannelSchema, "POST", admin.p(projectId, "/alerts/channels"), { kind: "webhook", name: "storms", url, allowDeadLinks: true });
  for (const condition of ["storm_opened", "storm_closed"]) {
    await admin.call(AlertRuleSchema, "POST", admin.p(projectId, "/alerts/rules"), { condition, channelIds: [channel.id] });
  }
  return channel.signingSecret!;
}

/**
 * Another alert delivery worker on the database, beside a server's, with the timings the alerts
 * test gives its server; `clock` may run ahead of the server's (timed rules).
 */
export function alertWorkerOn(prisma: ReturnType<typeof openDb>, secretsKey: string, clock?: () => number): AlertDispatcher {
  return new AlertDispatcher({
    store: new PrismaAlertRepository(prisma),
    box: new SecretBox(Buffer.from(secretsKey, "base64")),
    fetch: (project, url, init) => createOutbound(prisma).guard.fetch(project, url, init),
    storm: async () => null,
    baseUrl: "",
    backoff: { baseMs: 200, maxMs: 1_000, maxAttempts: 5 },
    timeoutMs: 5_000,
    leaseMs: 6_000,
    retentionMs: 86_400_000,
    ...(clock ? { clock } : {}),
  });
}
