import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedHook {
  type: string;
  header: string | undefined;
  body: { type: string; sentAt: string; data: Record<string, unknown> };
}

/**
 * A local HTTP endpoint for webhook tests. `mode` says how it answers: ok (204), fail (500), or
 * hang (never answers: the sender's timeout must end the request).
 */
export async function startWebhookReceiver(mode: "ok" | "fail" | "hang" = "ok") {
  const hooks: ReceivedHook[] = [];
  /** How many alerts each accepted request carried. */
  const groups: number[] = [];
  let attempts = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      attempts++;
      if (mode === "hang") return;
      if (mode === "fail") {
        res.writeHead(500).end();
        return;
      }
      const parsed = JSON.parse(body) as ReceivedHook["body"];
      const header = req.headers["x-idemgate-event"] as string | undefined;
      // Alerts that fired together come as one request (#44): each is recorded as the alert it carries.
      const members = parsed.type === "alert.group" ? (parsed.data.alerts as ReceivedHook["body"][]) : [parsed];
      for (const member of members) hooks.push({ type: member.type, header: parsed.type === "alert.group" ? member.type : header, body: member });
      groups.push(members.length);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/idemgate`,
    hooks,
    groups,
    attempts: () => attempts,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
