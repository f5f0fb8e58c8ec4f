import { mkdtempSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createGate } from "../../lib/sdk/gate";
import { withIdempotency } from "../../lib/sdk/http";
import { PROVIDERS } from "../helpers/databases";
import { type GatewayWorld, startGatewayWorld } from "../helpers/gateway-world";
import { allowOutbound, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { chunkedPost } from "../helpers/raw-http";
import { scalar } from "../helpers/sql";
import { problemType } from "../helpers/problem-type";

const MiB = 1024 * 1024;

/**
 * One route of each class the server answers, with the bytes it would act on. `body(pad)` is a
 * valid request padded with `pad` bytes; `effects(tag)` counts what a request tagged `tag` did
 * (an upstream's side effect, a stored row); `limit` is the route's body limit.
 */
interface RouteClass {
  name: string;
  limit: number;
  path: () => string;
  headers: () => Record<string, string>;
  body: (tag: string, pad: number) => unknown;
  /** The status a valid request under the limit gets. */
  okStatus: number;
  effects: (tag: string) => Promise<number>;
}

describe.each(PROVIDERS)("%s: body limits hold on the bytes read, on every route", (provider) => {
  let world: GatewayWorld;
  let mcp: RunningUpstream;
  let cookie: string;
  const base = () => world.servers[0]!.baseUrl;
  const agentHeaders = () => ({ authorization: `Bearer ${world.apiKey}`, "content-type": "application/json" });
  const operatorHeaders = () => ({ cookie, origin: base(), "content-type": "application/json" });
  /** Rows a refused request must not add, whatever its route. */
  const stored = async () =>
    (await scalar(world.db.url, "SELECT COUNT(*) FROM call_records")) + (await scalar(world.db.url, "SELECT COUNT(*) FROM events"));

  beforeAll(async () => {
    world = await startGatewayWorld(provider);
    mcp = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "body-limits-")), "effects.jsonl"));
    await allowOutbound(world.root, world.projectId, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectId, "shop", mcp.url);
    cookie = world.root.cookie!;
  });
  afterAll(async () => {
    await world?.stop();
    await mcp?.stop();
  });

  const ROUTES: RouteClass[] = [
    {
      name: "agent API (begin, the lean path)",
      limit: MiB,
      path: () => "/api/v1/calls/begin",
      headers: agentHeaders,
      body: (tag, pad) => ({ tool: "charge_card", runId: `run_${tag}`, stepId: "charge", args: { blob: "b".repeat(pad) } }),
      okStatus: 200,
      effects: (tag) => scalar(world.db.url, "SELECT COUNT(*) FROM call_records WHERE run_id = $1", [`run_${tag}`]),
    },
    {
      name: "operator API (an allowlist entry)",
      limit: MiB,
      path: () => world.root.p(world.projectId, "/outbound-allowlist"),
      headers: operatorHeaders,
      // The note's own bound is small: a valid body is padded with whitespace, which JSON ignores.
      body: (tag, pad) => `${JSON.stringify({ pattern: `${tag}.example.net`, note: "body limits" })}${" ".repeat(pad)}`,
      okStatus: 200,
      effects: (tag) => scalar(world.db.url, "SELECT COUNT(*) FROM outbound_allowlist WHERE pattern = $1", [`${tag}.example.net`]),
    },
    {
      name: "MCP (tools/call)",
      limit: MiB,
      path: () => "/mcp/shop",
      headers: () => ({ ...agentHeaders(), accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }),
      body: (tag, pad) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "refund_order", arguments: { orderId: tag, amount: 1, note: "n".repeat(pad) } } }),
      okStatus: 200,
      effects: async (tag) => mcp.effects().filter((effect) => effect.args.orderId === tag).length,
    },
    {
      name: "/gw (a gated POST)",
      limit: 10 * MiB,
      path: () => "/gw/pay/v1/charges",
      headers: () => ({ ...agentHeaders(), "idempotency-key": `key-${Math.random()}` }),
      body: (tag, pad) => ({ amount: 1, ref: tag, pad: "p".repeat(pad) }),
      okStatus: 200,
      effects: async (tag) => world.upstream.charges.filter((charge) => charge.ref === tag).length,
    },
    {
      name: "auth (sign-in)",
      limit: MiB,
      path: () => "/api/auth/sign-in/email",
      headers: () => ({ origin: base(), "content-type": "application/json" }),
      body: (tag, pad) => `${JSON.stringify({ email: `${tag}@idemgate.test`, password: "not-the-password-1" })}${" ".repeat(pad)}`,
      // A wrong password: answered, and counted against the account.
      okStatus: 401,
      effects: (tag) => scalar(world.db.url, "SELECT COUNT(*) FROM sign_in_failures WHERE email = $1", [`${tag}@idemgate.test`]),
    },
  ];
  describe("a body over the gate's own bounds is bad input (4xx naming the bound), never a 503 to retry forever", () => {
    const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });

    it("/gw: a body nested deeper than 100 levels is a 400; nothing is sent upstream or recorded", async () => {
      const before = { stored: await stored(), requests: world.upstream.requests.length };
      const res = await world.gw("v1/charges", { key: `deep-${Date.now()}`, body: { amount: 1, deep: nested(150) } });
      const problem = (await res.json()) as { type: string; detail: string };
      expect(res.status, problem.detail).toBe(400);
      expect(res.headers.get("retry-after")).toBeNull();
      expect(problem.detail).toMatch(/100 levels deep/);
      expect(world.upstream.requests.length).toBe(before.requests);
      expect(await stored()).toBe(before.stored);
    });

    it("the middleware with the gate over HTTP: a body too large for a begin is a 413 naming the limit; the handler never runs", async () => {
      let runs = 0;
      const served = withIdempotency({ gate: createGate({ baseUrl: base(), apiKey: world.apiKey }), caller: null, route: "/v1/uploads" }, async () => {
        runs++;
        return Response.json({ ok: true });
      });
      const before = await stored();
      const res = await served(
        new Request("http://tool.test/v1/uploads", {
          method: "POST",
          headers: { "idempotency-key": `big-${Date.now()}`, "content-type": "application/json" },
          body: JSON.stringify({ blob: "x".repeat(MiB + MiB / 2) }),
        }),
      );
      const problem = (await res.json()) as { type: string; detail: string };
      expect(res.status, problem.detail).toBe(413);
      expect(problem.type).toEqual(problemType("request-too-large"));
      expect(problem.detail).toMatch(/exceeds 1048576 bytes/);
      expect(res.headers.get("retry-after")).toBeNull();
      expect(runs).toBe(0);
      expect(await stored()).toBe(before);
    });
  });

  describe("a stored response must fit in the gate's request (issue #35 §3)", () => {
    it("the middleware with the gate over HTTP: a binary body under maxStoredBytes whose base64 is over the gate's request limit is recorded not replayable; the duplicate is told it ran (409), never a 500", async () => {
      let runs = 0;
      // 900 KiB of binary: under the 1 MiB maxStoredBytes, but 1.2 MB as base64 in a complete.
      const bytes = new Uint8Array(900 * 1024).map((_, i) => (i * 7) & 0xff);
      const served = withIdempotency({ gate: createGate({ baseUrl: base(), apiKey: world.apiKey }), caller: null, route: "/v1/exports" }, async () => {
        runs++;
        return new Response(bytes, { status: 200, headers: { "content-type": "application/octet-stream" } });
      });
      const key = `binary-${Date.now()}`;
      const send = () => served(new Request("http://tool.test/v1/exports", { method: "POST", headers: { "idempotency-key": key, "content-type": "application/json" }, body: "{}" }));
      const first = await send();
      expect(first.status).toBe(200);
      expect(Buffer.from(await first.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
      const again = await send();
      const problem = (await again.json()) as { type: string };
      expect([again.status, problem.type]).toEqual([409, problemType("request-already-processed")]);
      expect(runs).toBe(1);
    });
  });

  const encode = (body: unknown) => Buffer.from(typeof body === "string" ? body : JSON.stringify(body));

  describe.each(ROUTES)("$name", (route) => {
    it("a chunked body under the limit is read and acted on (the raw request is a valid one)", async () => {
      const tag = `under${Date.now()}`;
      const res = await chunkedPost(`${base()}${route.path()}`, route.headers(), encode(route.body(tag, 64 * 1024)));
      expect(res.status, res.body).toBe(route.okStatus);
      expect(await route.effects(tag)).toBe(1);
    });

    it.each([
      ["held open after the payload: the answer comes from the bytes read, not the body's end", true],
      ["sent whole: the 413 reaches the client that goes on sending", false],
    ])("a chunked body over the limit (no Content-Length) is refused with 413, nothing runs or is stored; %s", async (_, hold) => {
      const tag = `over${Date.now()}`;
      const before = await stored();
      const payload = encode(route.body(tag, route.limit + 2 * MiB));
      const res = await chunkedPost(`${base()}${route.path()}`, route.headers(), payload, { hold });
      expect(res.status, res.body).toBe(413);
      expect(res.body).toMatch(/too large|exceeds|larger than/i);
      expect(await route.effects(tag)).toBe(0);
      expect(await stored()).toBe(before);
      // The server is still well: the next request on a new connection is served.
      const next = await chunkedPost(`${base()}${route.path()}`, route.headers(), encode(route.body(`${tag}next`, 16)));
      expect(next.status, next.body).toBe(route.okStatus);
    });

    it("a content-encoded (gzip) body is refused with 415 and nothing runs or is stored: no route decodes, so none can be bombed", async () => {
      const tag = `gzip${Date.now()}`;
      const before = await stored();
      const upstreamRequests = world.upstream.requests.length;
      const res = await chunkedPost(`${base()}${route.path()}`, { ...route.headers(), "content-encoding": "gzip" }, gzipSync(encode(route.body(tag, 16))));
      expect(res.status, res.body).toBe(415);
      expect(res.body).toMatch(/content-encoding/i);
      expect(await route.effects(tag)).toBe(0);
      expect(world.upstream.requests.length).toBe(upstreamRequests);
      expect(await stored()).toBe(before);
    });
  });
});
