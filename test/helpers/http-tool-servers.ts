import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { serve } from "@hono/node-server";
import express from "express";
import { Hono } from "hono";
import { currentToolCall } from "../../lib/sdk/context";
import type { Gate } from "../../lib/sdk/gate";
import { idempotency } from "../../lib/sdk/http/hono";
import { withIdempotency } from "../../lib/sdk/http/fetch";
import { idempotencyMiddleware } from "../../lib/sdk/http/node";

export type Framework = "express" | "hono" | "fetch" | "next";

/**
 * A refunds API that the tests own, mounted with the middleware in one framework. Every execution
 * of the handler is counted per request id (the body's `id`): the side effect the gate must keep
 * to one. The body steers it: `fail` answers that status on the first `failTimes` executions,
 * `delayMs` keeps it busy (a concurrent duplicate arrives meanwhile).
 */
export interface ToolServer {
  baseUrl: string;
  /** Handler runs per request id, failed ones included. */
  executions: Map<string, number>;
  /** Refunds made (successful runs) per request id: the side effect. */
  effects: Map<string, number>;
  /** `/v1/stream` writes its first line, then waits for this before its second: a test sees what reaches it meanwhile. */
  release(id: string): void;
  close(): Promise<void>;
}

/** Hold points of `/v1/stream` handlers, by request id. */
class Holds {
  private readonly waiting = new Map<string, () => void>();
  private readonly released = new Set<string>();
  wait(id: string): Promise<void> {
    if (this.released.has(id)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }
  release = (id: string): void => {
    this.released.add(id);
    this.waiting.get(id)?.();
  };
}

/** `/v1/stream`'s body: a line, the hold, another line; counted like a refund. */
function streamed(body: RefundBody, executions: Map<string, number>, effects: Map<string, number>, holds: Holds): ReadableStream<Uint8Array> {
  executions.set(body.id, (executions.get(body.id) ?? 0) + 1);
  effects.set(body.id, (effects.get(body.id) ?? 0) + 1);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start: async (controller) => {
      controller.enqueue(encoder.encode("first\n"));
      await holds.wait(body.id);
      controller.enqueue(encoder.encode("second\n"));
      controller.close();
    },
  });
}

interface RefundBody {
  id: string;
  amount: number;
  fail?: number;
  failTimes?: number;
  delayMs?: number;
  /** Characters of detail the failure's body carries (a long validation report). */
  failDetail?: number;
}

async function refund(
  body: RefundBody,
  executions: Map<string, number>,
  effects: Map<string, number>,
  forwardedKey?: string,
): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  const count = (executions.get(body.id) ?? 0) + 1;
  executions.set(body.id, count);
  if (body.delayMs) await new Promise((resolve) => setTimeout(resolve, body.delayMs));
  const key = currentToolCall()?.idempotencyKey ?? forwardedKey ?? null;
  if (body.fail && count <= (body.failTimes ?? 1)) {
    // A 401 says how to authenticate (RFC 9110 §15.5.2): the header a replay of it must keep.
    const challenge: Record<string, string> = body.fail === 401 ? { "www-authenticate": 'Bearer realm="refunds"' } : {};
    const detail = body.failDetail ? { detail: "é".repeat(body.failDetail) } : {};
    return { status: body.fail, headers: { "content-type": "application/json", "x-failure": `attempt-${count}`, ...challenge }, body: { error: `failed with ${body.fail}`, count, ...detail } };
  }
  effects.set(body.id, (effects.get(body.id) ?? 0) + 1);
  return {
    status: 201,
    headers: { "content-type": "application/json", "x-refund-id": `rf_${body.id}_${count}`, location: `/v1/refunds/rf_${body.id}`, "set-cookie": `seen=${count}` },
    body: { refundId: `rf_${body.id}_${count}`, amount: body.amount, execution: count, key },
  };
}

/** The stored limit of `/v1/compressed-bounded` (its middleware's maxStoredBytes). */
export const COMPRESSED_BOUND = 16 * 1024;

interface CompressedBody {
  id: string;
  /** Characters of one letter: the JSON inflates far beyond its compressed bytes. */
  pad?: number;
  /** Random bytes (as hex): the JSON does not compress below about half. */
  noise?: number;
}

/**
 * `/v1/compressed` and `/v1/compressed-bounded`: a refund whose answer is compressed as the client
 * asked (`Accept-Encoding: br` or `gzip`), as a compression middleware in front of the handler
 * would; counted like a refund. Each execution's JSON differs (its count and noise), so a replay
 * byte-identical to the first answer is the stored one, not another run.
 */
function compressedRefund(body: CompressedBody, acceptEncoding: string, executions: Map<string, number>, effects: Map<string, number>) {
  const count = (executions.get(body.id) ?? 0) + 1;
  executions.set(body.id, count);
  effects.set(body.id, (effects.get(body.id) ?? 0) + 1);
  const json = JSON.stringify({ refundId: `rf_${body.id}_${count}`, execution: count, pad: "x".repeat(body.pad ?? 0), noise: randomBytes(body.noise ?? 0).toString("hex") });
  const encoding = /\bbr\b/.test(acceptEncoding) ? "br" : "gzip";
  const bytes = encoding === "br" ? brotliCompressSync(json) : gzipSync(json);
  return { status: 201, headers: { "content-type": "application/json", "content-encoding": encoding, vary: "accept-encoding", "x-refund-id": `rf_${body.id}_${count}` }, bytes };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: http.Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** `/v1/refunds` answers 409 to a concurrent duplicate; `/v1/latched` waits for it (latchMs) and replays. */
export async function startToolServer(framework: Framework, gate: Gate): Promise<ToolServer> {
  const executions = new Map<string, number>();
  const effects = new Map<string, number>();
  if (framework === "next") throw new Error("the Next.js routes are this app's own: see nextToolServer");
  // The caller is whoever the request says it is (`x-caller`), none without it: the tests send two.
  const caller = { express: (req: http.IncomingMessage) => (req.headers["x-caller"] as string | undefined) ?? null, fetch: (req: Request) => req.headers.get("x-caller") };
  const latch = { gate, latchMs: 15_000 };
  const holds = new Holds();
  const streamResponse = (body: RefundBody) =>
    new Response(streamed(body, executions, effects, holds), { status: 200, headers: { "content-type": "text/plain", "x-refund-id": `rf_${body.id}` } });
  if (framework === "express") {
    const app = express();
    const handler: express.RequestHandler = async (req, res) => {
      // The Next.js fixture routes run the middleware in the app and forward executions here with the gate's key.
      const out = await refund(req.body as RefundBody, executions, effects, req.get("idemgate-fixture-key"));
      res.status(out.status).set(out.headers).json(out.body);
    };
    // Before the body parser: it reads the bytes itself (numbers fingerprinted as written) and leaves
    // req.body parsed; /v1/latched keeps the other order (after express.json()).
    app.post("/v1/refunds", idempotencyMiddleware({ gate, caller: caller.express }), express.json(), handler);
    app.post("/v1/latched", express.json(), idempotencyMiddleware({ ...latch, caller: caller.express }), handler);
    app.get("/v1/refunds", (_req, res) => void res.json({ list: [] }));
    app.post("/v1/stream", express.json(), idempotencyMiddleware({ gate, caller: caller.express }), async (req, res) => {
      res.status(200).set({ "content-type": "text/plain", "x-refund-id": `rf_${(req.body as RefundBody).id}` });
      for await (const chunk of streamed(req.body as RefundBody, executions, effects, holds)) res.write(chunk);
      res.end();
    });
    const compressedHandler: express.RequestHandler = (req, res) => {
      const out = compressedRefund(req.body as CompressedBody, req.get("accept-encoding") ?? "", executions, effects);
      res.status(out.status).set(out.headers).end(out.bytes);
    };
    app.post("/v1/compressed", idempotencyMiddleware({ gate, caller: caller.express }), express.json(), compressedHandler);
    app.post("/v1/compressed-bounded", idempotencyMiddleware({ gate, caller: caller.express, maxStoredBytes: COMPRESSED_BOUND }), express.json(), compressedHandler);
    // The same handler without the middleware: the baseline the benchmark compares with.
    app.post("/v1/direct", express.json(), handler);
    const server = http.createServer(app);
    return { baseUrl: await listen(server), executions, effects, release: holds.release, close: close(server) };
  }
  const fetchHandler = async (request: Request) => {
    const out = await refund((await request.json()) as RefundBody, executions, effects);
    const headers = new Headers(out.headers);
    return new Response(JSON.stringify(out.body), { status: out.status, headers });
  };
  let fetchApp: (request: Request) => Promise<Response>;
  if (framework === "hono") {
    const app = new Hono();
    app.post("/v1/refunds", idempotency({ gate, caller: (c) => caller.fetch(c.req.raw) }), (c) => fetchHandler(c.req.raw));
    app.post("/v1/latched", idempotency({ ...latch, caller: (c) => caller.fetch(c.req.raw) }), (c) => fetchHandler(c.req.raw));
    app.get("/v1/refunds", (c) => c.json({ list: [] }));
    const compressedHandler = async (request: Request) => {
      const out = compressedRefund((await request.json()) as CompressedBody, request.headers.get("accept-encoding") ?? "", executions, effects);
      return new Response(out.bytes, { status: out.status, headers: out.headers });
    };
    app.post("/v1/compressed", idempotency({ gate, caller: (c) => caller.fetch(c.req.raw) }), (c) => compressedHandler(c.req.raw));
    app.post("/v1/compressed-bounded", idempotency({ gate, maxStoredBytes: COMPRESSED_BOUND, caller: (c) => caller.fetch(c.req.raw) }), (c) => compressedHandler(c.req.raw));
    app.post("/v1/stream", idempotency({ gate, caller: (c) => caller.fetch(c.req.raw) }), async (c) => streamResponse((await c.req.json()) as RefundBody));
    fetchApp = async (request) => app.fetch(request);
  } else {
    // A Next.js route module's exports, as `app/v1/refunds/route.ts` would have them.
    const refunds = { POST: withIdempotency({ gate, caller: caller.fetch, route: "/v1/refunds" }, fetchHandler), GET: async () => Response.json({ list: [] }) };
    const latched = { POST: withIdempotency({ ...latch, caller: caller.fetch, route: "/v1/latched" }, fetchHandler) };
    const stream = { POST: withIdempotency({ gate, caller: caller.fetch, route: "/v1/stream" }, async (request: Request) => streamResponse((await request.json()) as RefundBody)) };
    fetchApp = async (request) => {
      const { pathname } = new URL(request.url);
      const route = pathname === "/v1/refunds" ? refunds : pathname === "/v1/latched" ? latched : pathname === "/v1/stream" ? stream : null;
      const method = request.method as "POST" | "GET";
      const handler = route && (route as Record<string, ((r: Request) => Promise<Response>) | undefined>)[method];
      return handler ? handler(request) : new Response("not found", { status: 404 });
    };
  }
  const server = serve({ fetch: fetchApp, port: 0, hostname: "127.0.0.1" }) as http.Server;
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, executions, effects, release: holds.release, close: close(server) };
}

/**
 * The middleware in a real Next.js route handler: this app's test-only routes under
 * /test-fixtures/http-tools/{backend} (lib/http/fixtures), served by `next start` with
 * IDEMGATE_TEST_FIXTURES pointing at `refunds` (an Express tool server here, whose ungated
 * /v1/direct does and counts the work). The counts are the refunds server's.
 */
export function nextToolServer(nextBaseUrl: string, backend: "in-process" | "http", refunds: ToolServer): ToolServer {
  return {
    baseUrl: `${nextBaseUrl}/test-fixtures/http-tools/${backend}`,
    executions: refunds.executions,
    effects: refunds.effects,
    release: refunds.release,
    close: async () => undefined,
  };
}

/** The server environment that turns the fixture routes on for one project. */
export function nextFixtureEnv(refunds: ToolServer, project: { projectId: string; apiKey: string }): Record<string, string> {
  return { IDEMGATE_TEST_FIXTURES: JSON.stringify({ backendUrl: refunds.baseUrl, projectId: project.projectId, apiKey: project.apiKey }) };
}
