import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEM_DOCS } from "../../lib/http/problem-docs";
import { PROVIDERS } from "../helpers/databases";
import { type SharedGatewayWorld, gatewayWorldOnSharedServer } from "../helpers/gateway-world";
import { type MountedMiddleware, mountMiddleware, stopMiddlewareApps } from "../helpers/middleware-matrix";

/**
 * Issue #35 §8: replays keep the headers RFC 9110 requires with their status, and problem types
 * link to documentation: a page per problem type, served by the app, is each problem's `type`.
 */
afterAll(async () => {
  await stopMiddlewareApps();
});

async function page(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

describe.each(PROVIDERS)("%s: /gw", (provider) => {
  let world: SharedGatewayWorld;

  beforeAll(async () => {
    world = await gatewayWorldOnSharedServer(provider);
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("a stored 401 replays with its WWW-Authenticate, a stored 413 with its Retry-After; the upstream is called once each", async () => {
    for (const [status, header, value] of [
      [401, "www-authenticate", 'Bearer realm="pay"'],
      [413, "retry-after", "120"],
    ] as const) {
      const key = randomUUID();
      const first = await world.gw(`v1/echo?status=${status}`, { key, body: {} });
      expect([first.status, first.headers.get(header)]).toEqual([status, value]);
      await first.arrayBuffer();
      const again = await world.gw(`v1/echo?status=${status}`, { key, body: {} });
      expect([again.status, again.headers.get("idempotent-replayed"), again.headers.get(header)]).toEqual([status, "true", value]);
    }
  });

  it("each problem's type is its page on this gate, and the page says what it means", async () => {
    const base = world.servers[0]!.baseUrl;
    const missing = (await (await world.gw("v1/charges", { body: { amount: 1 } })).json()) as { type: string; title: string };
    expect(missing.type).toBe(`${base}/problems/idempotency-key-missing`);
    const key = randomUUID();
    expect((await world.gw("v1/charges", { key, body: { amount: 2 } })).status).toBe(200);
    const reused = (await (await world.gw("v1/charges", { key, body: { amount: 3 } })).json()) as { type: string; title: string };
    expect(reused.type).toBe(`${base}/problems/idempotency-key-reused`);
    const anonymous = (await (await fetch(`${base}/gw/pay/v1/charges`, { method: "POST", body: "{}" })).json()) as { type: string };
    expect(anonymous.type).toBe(`${base}/problems/unauthorized`);
    for (const problem of [missing, reused]) {
      const doc = await page(problem.type);
      expect([doc.status, doc.type]).toEqual([200, expect.stringMatching(/^text\/html/)]);
      expect(doc.text).toContain(problem.title);
    }
    expect((await page(anonymous.type)).status).toBe(200);
  });
});

describe("problem pages", () => {
  let world: SharedGatewayWorld;

  beforeAll(async () => {
    world = await gatewayWorldOnSharedServer("sqlite");
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("a page for every problem type, listed in an index; an unknown type is a 404", async () => {
    const base = world.servers[0]!.baseUrl;
    const index = await page(`${base}/problems`);
    expect(index.status).toBe(200);
    for (const doc of PROBLEM_DOCS) {
      const served = await page(`${base}/problems/${doc.slug}`);
      expect([doc.slug, served.status]).toEqual([doc.slug, 200]);
      expect(index.text).toContain(`/problems/${doc.slug}`);
    }
    expect((await page(`${base}/problems/no-such-problem`)).status).toBe(404);
  });
});

describe.each(["express", "hono", "fetch", "next"] as const)("Idempotency-Key middleware in %s, gate over HTTP", (framework) => {
  let mounted: MountedMiddleware;

  beforeAll(async () => {
    mounted = await mountMiddleware(framework, "http", "sqlite");
  });

  afterAll(async () => {
    await mounted?.close();
  });

  it("a problem's type is its page on the gate", async () => {
    const res = await fetch(`${mounted.tool.baseUrl}/v1/refunds`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const problem = (await res.json()) as { type: string; title: string };
    // The gate's URL as the middleware's gate client names it (the Next.js fixture names its own origin by the request's, `localhost`).
    const gate = new URL(mounted.app!.server.baseUrl);
    const type = new URL(problem.type);
    expect([res.status, type.port, type.pathname]).toEqual([400, gate.port, "/problems/idempotency-key-missing"]);
    if (framework !== "next") expect(type.origin).toBe(gate.origin);
    const doc = await page(`${gate.origin}${type.pathname}`);
    expect([doc.status, doc.text.includes(problem.title)]).toEqual([200, true]);
  });
});
