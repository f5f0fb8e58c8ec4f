import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";

/**
 * A payments API the gateway sits in front of, counting its side effects. Like Stripe, it
 * dedupes on the Idempotency-Key it is sent (the same key again gets the first answer, or a 409
 * while the first is still running); without a key every charge is a new one.
 */
export interface ChargeUpstream {
  url: string;
  port: number;
  /** Charges made: the side effects. */
  charges: { id: string; amount: number; key: string | null; ref: string | null }[];
  /** Every request received, keyed or not. */
  requests: { path: string; key: string | null; authorization: string | null; headers: Record<string, unknown> }[];
  /** `/v1/held?id=…` sends its first line, then waits for this before its last. */
  release(id: string): void;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

export async function startChargeUpstream(): Promise<ChargeUpstream> {
  const charges: ChargeUpstream["charges"] = [];
  const requests: ChargeUpstream["requests"] = [];
  const byKey = new Map<string, { done: boolean; body: string }>();
  const failedOnce = new Set<string>();
  const held = new Map<string, () => void>();
  const released = new Set<string>();
  const release = (id: string) => {
    released.add(id);
    held.get(id)?.();
  };
  const server = http.createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url!, "http://upstream");
    const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
    requests.push({ path: url.pathname, key, authorization: req.headers.authorization ?? null, headers: { ...req.headers } });
    if (url.pathname === "/v1/redirect-to-metadata") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/iam/security-credentials/" }).end();
      return;
    }
    if (url.pathname === "/v1/held") {
      const id = url.searchParams.get("id")!;
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first\n");
      if (!released.has(id)) await new Promise<void>((resolve) => held.set(id, resolve));
      res.end("last\n");
      return;
    }
    if (url.pathname === "/v1/echo") {
      // What arrived, as it arrived: the request target byte for byte (latin1, as Node read it) and
      // every header. `status` answers with that status (a 401 with its challenge), `pad` pads the body.
      const status = Number(url.searchParams.get("status") ?? 200);
      const pad = Number(url.searchParams.get("pad") ?? 0);
      const challenge: Record<string, string> = status === 401 ? { "www-authenticate": 'Bearer realm="pay"' } : status === 413 || status === 503 ? { "retry-after": "120" } : {};
      const body = JSON.stringify({ served: requests.length, target: req.url, headers: req.headers, pad: "ü".repeat(pad) });
      res.writeHead(status, { "content-type": "application/json", ...challenge }).end(body);
      return;
    }
    if (url.pathname === "/v1/redirect") {
      // Wherever the test says: another origin, to see which headers follow.
      res.writeHead(307, { location: url.searchParams.get("to")! }).end();
      return;
    }
    if (url.pathname === "/v1/gzip") {
      // Compressed as the caller asked (Accept-Encoding), with a header for this hop only (named in
      // Connection) and the upstream's own Via: a proxy passes the bytes and their encoding, not the hop.
      const body = Buffer.from(JSON.stringify({ served: requests.length, acceptEncoding: req.headers["accept-encoding"] ?? null }));
      const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
      res.writeHead(200, {
        "content-type": "application/json",
        ...(gzip ? { "content-encoding": "gzip" } : {}),
        connection: "keep-alive, x-hop-secret",
        "x-hop-secret": "for the next hop only",
        "proxy-connection": "keep-alive",
        via: "1.1 upstream-lb",
      });
      res.end(gzip ? gzipSync(body) : body);
      return;
    }
    if (url.pathname === "/v1/export") {
      // Generated as it is sent, with backpressure: the test server never holds the body either.
      const total = Number(url.searchParams.get("bytes") ?? 1024 ** 3);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(total) });
      let sent = 0;
      Readable.from(
        (function* () {
          while (sent < total) {
            const size = Math.min(CHUNK.length, total - sent);
            sent += size;
            yield size === CHUNK.length ? CHUNK : CHUNK.subarray(0, size);
          }
        })(),
      ).pipe(res);
      return;
    }
    if (url.pathname !== "/v1/charges" || req.method !== "POST") return void res.writeHead(404).end();
    // `ref` names the intended charge (the chaos suite counts effects per ref); `failOnce` answers 503 to its first request, charging nothing.
    const input = JSON.parse(raw || "{}") as { amount?: number; delayMs?: number; ref?: string; failOnce?: boolean };
    if (input.failOnce && input.ref && !failedOnce.has(input.ref)) {
      failedOnce.add(input.ref);
      return void res.writeHead(503, { "content-type": "application/json", "retry-after": "0" }).end('{"error":"try again"}');
    }
    if (key) {
      const seen = byKey.get(key);
      if (seen && !seen.done) return void res.writeHead(409, { "content-type": "application/json" }).end('{"error":"a request with this key is in progress"}');
      if (seen) return void res.writeHead(200, { "content-type": "application/json", "idempotent-replayed": "true" }).end(seen.body);
      byKey.set(key, { done: false, body: "" });
    }
    const charge = { id: `ch_${charges.length + 1}`, amount: input.amount ?? 0, key, ref: input.ref ?? null };
    charges.push(charge);
    if (input.delayMs) await new Promise((resolve) => setTimeout(resolve, input.delayMs));
    const body = JSON.stringify({ chargeId: charge.id, amount: charge.amount });
    if (key) byKey.set(key, { done: true, body });
    res.writeHead(200, { "content-type": "application/json", "x-charge-id": charge.id }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    charges,
    requests,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
