import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/**
 * How one path answers: ok; fail (500) for the first `times` requests; hang (never answers) for the
 * first `times`; busy (429 with `Retry-After: seconds`) for the first `times`.
 */
export type ReceiverMode = { kind: "ok" } | { kind: "fail"; times: number } | { kind: "hang"; times: number } | { kind: "busy"; times: number; retryAfterSeconds: number };

/** Slack's own limits on an incoming webhook's text (chat.postMessage truncates at 40,000 characters). */
const SLACK_MAX_TEXT = 40_000;

export interface SlackMessage {
  text: string;
}

export interface PagerDutyEvent {
  routing_key: string;
  event_action: "trigger" | "resolve" | "acknowledge";
  dedup_key: string;
  payload?: { summary: string; source: string; severity: string; component?: string; class?: string; custom_details?: Record<string, unknown> };
  links?: { href: string; text: string }[];
}

export interface SignedHook {
  id: string;
  type: string;
  body: { type: string; timestamp: string; sentAt: string; data: Record<string, unknown>; alert: Record<string, unknown> };
}

/**
 * Local stand-ins for Slack incoming webhooks, PagerDuty's Events API v2 and a Standard Webhooks
 * receiver, on one port. Each checks what the real one would: Slack's `text`; PagerDuty's
 * routing key, action and dedup_key (a trigger for a dedup_key already open is deduplicated, as
 * PagerDuty does: it never pages twice); the webhook's signature, verified with the channel's
 * secret (a bad one is a 401 and is not recorded). Requests are counted per path before the mode
 * decides the answer. Slack bodies are checked against Slack's rules: a mention (`<!…>`, `<@…>`,
 * `<#…>`) or a link that is not to `options.linkBase` means agent text reached Slack unescaped
 * (`slackViolations`); with `slackPerSecond`, a path posted to again within a second answers 429
 * as Slack does (`tooFast`).
 */
export async function startAlertReceivers(options: { routingKey: string; linkBase?: string; slackPerSecond?: boolean }) {
  const slack: SlackMessage[] = [];
  const pagerDuty: PagerDutyEvent[] = [];
  /** Incidents PagerDuty would hold, by dedup_key. */
  const incidents = new Map<string, { pages: number; status: "triggered" | "resolved" }>();
  const hooks = new Map<string, SignedHook[]>();
  const alertsAt = new Map<string, SignedHook[]>();
  const secrets = new Map<string, string>();
  const modes = new Map<string, ReceiverMode>();
  const requests = new Map<string, { webhookId: string | undefined; at: number }[]>();
  const slackViolations: string[] = [];
  const slackByPath = new Map<string, SlackMessage[]>();
  const tooFast: string[] = [];
  const lastSlackAt = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();
  const rejected: string[] = [];
  /** Resolves for a dedup_key never triggered: a resolve without its trigger is a broken pair. */
  const strayResolves: string[] = [];

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const seen = requests.get(path) ?? [];
      seen.push({ webhookId: req.headers["webhook-id"] as string | undefined, at: Date.now() });
      requests.set(path, seen);
      const mode = modes.get(path) ?? { kind: "ok" };
      if (mode.kind === "fail" && seen.length <= mode.times) return void res.writeHead(500).end("down");
      if (mode.kind === "hang" && seen.length <= mode.times) return void hanging.add(res);
      if (mode.kind === "busy" && seen.length <= mode.times) return void res.writeHead(429, { "retry-after": String(mode.retryAfterSeconds) }).end("rate_limited");
      const answer = (status: number, body = "") => void res.writeHead(status, { "content-type": "application/json" }).end(body);
      if (path.startsWith("/slack")) {
        const body = JSON.parse(raw) as SlackMessage;
        if (typeof body.text !== "string" || body.text.length === 0) return answer(400, "no_text");
        if (options.slackPerSecond) {
          // Slack's documented pace for an incoming webhook: one message per second (a little slack for timers).
          const last = lastSlackAt.get(path);
          if (last !== undefined && Date.now() - last < 900) {
            tooFast.push(path);
            return void res.writeHead(429, { "retry-after": "1" }).end("rate_limited");
          }
          lastSlackAt.set(path, Date.now());
        }
        if (body.text.length > SLACK_MAX_TEXT) slackViolations.push(`text of ${body.text.length} characters`);
        for (const [tag] of body.text.matchAll(/<[^>]*>/g)) {
          if (/^<[!@#]/.test(tag)) slackViolations.push(`mention ${tag}`);
          else if (!options.linkBase || !tag.startsWith(`<${options.linkBase}`)) slackViolations.push(`link ${tag}`);
        }
        slack.push(body);
        slackByPath.set(path, [...(slackByPath.get(path) ?? []), body]);
        return answer(200, "ok");
      }
      if (path.startsWith("/pagerduty")) {
        const event = JSON.parse(raw) as PagerDutyEvent;
        if (event.routing_key !== options.routingKey) return answer(400, JSON.stringify({ status: "invalid event", message: "bad routing_key" }));
        if (!event.dedup_key || !["trigger", "resolve"].includes(event.event_action)) return answer(400, JSON.stringify({ status: "invalid event" }));
        if (event.event_action === "trigger" && (!event.payload?.summary || !event.payload.source || !event.payload.severity)) return answer(400, JSON.stringify({ status: "invalid event" }));
        pagerDuty.push(event);
        const incident = incidents.get(event.dedup_key);
        if (event.event_action === "trigger") {
          if (!incident || incident.status === "resolved") incidents.set(event.dedup_key, { pages: (incident?.pages ?? 0) + 1, status: "triggered" });
        } else if (incident) {
          incident.status = "resolved";
        } else {
          strayResolves.push(event.dedup_key);
        }
        return answer(202, JSON.stringify({ status: "success", dedup_key: event.dedup_key }));
      }
      const secret = secrets.get(path);
      if (!secret) return answer(404);
      try {
        new Webhook(secret).verify(raw, req.headers as Record<string, string>);
      } catch {
        rejected.push(path);
        return answer(401);
      }
      const id = req.headers["webhook-id"] as string;
      const body = JSON.parse(raw) as SignedHook["body"];
      hooks.set(path, [...(hooks.get(path) ?? []), { id, type: body.type, body }]);
      // A group (#44) carries each alert's own body and delivery id: recorded one by one, as received alerts.
      const members = body.type === "alert.group" ? (body.data.alerts as (SignedHook["body"] & { deliveryId: string })[]).map((m) => ({ id: m.deliveryId, type: m.type, body: m })) : [{ id, type: body.type, body }];
      alertsAt.set(path, [...(alertsAt.get(path) ?? []), ...members]);
      return answer(204);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  return {
    port,
    url: (path: string) => `${base}${path}`,
    slack,
    pagerDuty,
    incidents,
    rejected,
    strayResolves,
    slackViolations,
    tooFast,
    /** Slack messages accepted at a path. */
    slackAt: (path: string) => slackByPath.get(path) ?? [],
    /** Signed hooks received at a path, every redelivery included (a group is one hook of type `alert.group`). */
    hooks: (path: string) => hooks.get(path) ?? [],
    /** The alerts signed hooks carried to a path, a group's one by one (id: the alert's delivery id). */
    hookAlerts: (path: string) => alertsAt.get(path) ?? [],
    /** Requests that reached a path (answered or not). */
    requests: (path: string) => requests.get(path) ?? [],
    setSecret: (path: string, secret: string) => void secrets.set(path, secret),
    setMode: (path: string, mode: ReceiverMode) => void modes.set(path, mode),
    close: () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
