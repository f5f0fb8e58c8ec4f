import { randomUUID } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SharedGatewayWorld, gatewayWorldOnSharedServer } from "../helpers/gateway-world";

/** A request over node:http: the target and headers go out exactly as written (fetch would re-encode the query). */
function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  const { origin } = new URL(url);
  const target = url.slice(origin.length);
  return new Promise((resolve, reject) => {
    const req = http.request(origin, { method, path: target, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error("no answer within 60 s")));
    req.end(body);
  });
}

interface Echoed {
  target: string;
  headers: Record<string, string>;
}

/**
 * Issue #35 §7 (RFC 9110 §7.6): what the gateway sends upstream. The query byte for byte (a URL
 * parser re-encodes `'` and `<>`), X-Forwarded-* and Forwarded as the client sees the request
 * (never what a client claims, never the gate's own port), and none of Idemgate's own headers.
 */
describe("/gw forwards the client's request, not the gate's view of it", () => {
  let world: SharedGatewayWorld;

  beforeAll(async () => {
    world = await gatewayWorldOnSharedServer("sqlite");
  });

  afterAll(async () => {
    await world?.stop();
  });

  const QUERY = "?b='x'&c=<a>&d=%7e+%2B;e==&&f&b=2";
  const claims = {
    "x-forwarded-for": "6.6.6.6",
    "x-forwarded-host": "evil.example",
    "x-forwarded-proto": "https",
    "x-forwarded-port": "8443",
    forwarded: "for=6.6.6.6;host=evil.example",
    "x-real-ip": "6.6.6.6",
    "x-idemgate-client-ip": "6.6.6.6",
    "x-idemgate-debug": "internal",
  };

  function expectClientView(echoed: Echoed) {
    const gate = new URL(world.servers[0]!.baseUrl);
    expect(echoed.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(echoed.headers["x-forwarded-host"]).toBe(gate.host);
    expect(echoed.headers["x-forwarded-proto"]).toBe("http");
    expect(echoed.headers.forwarded).toBe(`for=127.0.0.1;host="${gate.host}";proto=http`);
    expect(echoed.headers["x-forwarded-port"]).toBeUndefined();
    expect(echoed.headers["x-real-ip"]).toBeUndefined();
    expect(Object.keys(echoed.headers).filter((name) => name.startsWith("x-idemgate-") || name.startsWith("idemgate-"))).toEqual([]);
  }

  it("a gated POST: the upstream gets the query as sent and the client's view; the replay matches the same bytes, another spelling of the query is another payload", async () => {
    const key = randomUUID();
    const url = `${world.servers[0]!.baseUrl}/gw/pay/v1/echo${QUERY}`;
    const headers = { authorization: `Bearer ${world.apiKey}`, "idempotency-key": key, "content-type": "application/json", ...claims };
    const first = await rawRequest(url, "POST", headers, "{}");
    expect(first.status).toBe(200);
    const echoed = JSON.parse(first.body) as Echoed;
    expect(echoed.target).toBe(`/v1/echo${QUERY}`);
    expectClientView(echoed);
    const again = await rawRequest(url, "POST", headers, "{}");
    expect([again.status, again.body]).toEqual([200, first.body]);
    // `%27` is what a URL parser makes of `'`: to the upstream another query, so another payload.
    const respelled = await rawRequest(url.replaceAll("'", "%27"), "POST", headers, "{}");
    expect(respelled.status).toBe(422);
  });

  it("an ungated GET: the query as sent and the client's view", async () => {
    const url = `${world.servers[0]!.baseUrl}/gw/pay/v1/echo${QUERY}`;
    const res = await rawRequest(url, "GET", { authorization: `Bearer ${world.apiKey}`, ...claims });
    expect(res.status).toBe(200);
    const echoed = JSON.parse(res.body) as Echoed;
    expect(echoed.target).toBe(`/v1/echo${QUERY}`);
    expectClientView(echoed);
  });
});
