import { AlertRuleSchema, CreatedAlertChannelSchema } from "../../lib/contract/alerts";
import { OutboundAllowlistEntrySchema } from "../../lib/contract/outbound";
import { AlertDispatcher } from "../../lib/server/alerts/alert-dispatcher";
import { createOutbound } from "../../lib/server/outbound/outbound-context";
import { SecretBox } from "../../lib/server/gateways/upstreams/secret-box";
import { PrismaAlertRepository } from "../../lib/store/prisma/alert-repository";
import type { openDb } from "../../lib/store/prisma/client";
import { AdminClient, TEST_ADMIN_TOKEN } from "./admin-client";
import { TestClient } from "./client";
import { InsightsClient } from "./insights-client";
import { OPERATOR_ENV, OperatorClient, ROOT, createOperator } from "./operator-client";

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

/**
 * A server env for the alert suites: operators, the admin token, sealed channel secrets, and fast
 * workers (deliveries every 200 ms, storms judged every 200 ms, backoff capped at 1 s, timed rules
 * scanned every 500 ms). `overrides` adds each suite's own timings.
 */
export function alertServerEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...OPERATOR_ENV,
    IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    IDEMGATE_SECRETS_KEY: SECRETS_KEY,
    ...FAST_ALERTS_ENV,
    IDEMGATE_STORM_INTERVAL_MS: "200",
    IDEMGATE_ALERT_MAX_BACKOFF_MS: "1000",
    IDEMGATE_ALERT_SCAN_MS: "500",
    ...overrides,
  };
}

/** The clients an alert suite drives its server with: an agent, the admin API, insights, and an admin operator. */
export async function alertClients(baseUrl: string, project: { projectId: string; apiKey: string }) {
  const root = await OperatorClient.signIn(baseUrl, ROOT.email, ROOT.password);
  return {
    client: new TestClient(baseUrl, project.apiKey),
    admin: new AdminClient(baseUrl, project.projectId),
    insights: new InsightsClient(baseUrl, project.projectId),
    ops: await createOperator(root, project.projectId, "admin"),
  };
}
