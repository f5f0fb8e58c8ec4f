import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { type CallerOf, type IdempotencyOptions, requireCaller, resolveCaller, runIdempotent } from "./idempotency-core";
import { bodyValue } from "./fetch-reply";
import { clientValue } from "../exact-json";
import type { HttpReply } from "./stored-response";

/** Express's additions to the request, when it is Express calling. */
type NodeRequest = IncomingMessage & { body?: unknown; route?: { path?: unknown }; baseUrl?: string; originalUrl?: string };
type Next = (error?: unknown) => void;

export interface NodeIdempotencyOptions extends IdempotencyOptions {
  /** The route pattern naming the tool; default Express's matched route (when mounted on a route), else the path. */
  route?: string;
  /** Who sent the request (`(req) => req.user.id`), part of the key's scope; null when the app has one caller. Required. */
  caller: CallerOf<IncomingMessage & { body?: unknown }>;
}

/**
 * Express (and Connect-style) middleware: `app.post("/v1/refunds", express.json(), idempotency({ gate }), handler)`.
 * Mount it after the body parser; without one it reads the body itself and leaves it on `req.body`
 * (parsed when JSON, else a Buffer). The handler's response is held until the gate has it.
 */
export function idempotencyMiddleware(options: NodeIdempotencyOptions): (req: IncomingMessage, res: ServerResponse, next: Next) => void {
  requireCaller(options.caller);
  return (req, res, next) => {
    handle(options, req as NodeRequest, res, next).catch(next);
  };
}

/** Plain node:http: `http.createServer(withIdempotencyNode({ gate, route: "/v1/refunds" }, handler))`. */
export function withIdempotencyNode(
  options: NodeIdempotencyOptions,
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return idempotencyHandler(options, handler);
}

function idempotencyHandler(options: NodeIdempotencyOptions, handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>) {
  requireCaller(options.caller);
  return (req: IncomingMessage, res: ServerResponse) => {
    const fail = (error?: unknown) => {
      if (error === undefined) return;
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal error");
    };
    const next: Next = (error) => {
      if (error !== undefined) return fail(error);
      Promise.resolve(handler(req, res)).catch(fail);
    };
    handle(options, req as NodeRequest, res, next).catch(fail);
  };
}

/**
 * The body as the fingerprint sees it. Mounted before a body parser, it reads the bytes itself, so
 * numbers are fingerprinted as written, and leaves on `req.body` what `express.json()` would (a
 * parser after it then has nothing left to read). After a parser it has only the parsed value (or a
 * `req.rawBody` Buffer, when the parser's `verify` kept one).
 */
async function readBody(req: NodeRequest & { rawBody?: unknown }): Promise<unknown> {
  const contentType = req.headers["content-type"];
  if (Buffer.isBuffer(req.rawBody)) return bodyValue(req.rawBody, contentType);
  if (req.body !== undefined) {
    if (Buffer.isBuffer(req.body)) return bodyValue(req.body, contentType);
    if (typeof req.body === "string") return bodyValue(Buffer.from(req.body), contentType);
    return clientValue(req.body);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const value = bodyValue(bytes, contentType);
  req.body = value instanceof Uint8Array ? bytes : value === null ? null : JSON.parse(bytes.toString("utf8"));
  return value;
}

function routeOf(req: NodeRequest, pathname: string): string {
  const path = req.route?.path;
  return typeof path === "string" ? `${req.baseUrl ?? ""}${path}` : pathname;
}

async function handle(options: NodeIdempotencyOptions, req: NodeRequest, res: ServerResponse, next: Next): Promise<void> {
  const url = new URL(req.originalUrl ?? req.url ?? "/", "http://localhost");
  const incoming = {
    method: req.method ?? "GET",
    route: options.route ?? routeOf(req, url.pathname),
    target: url.pathname + url.search,
    header: (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    },
    body: await readBody(req),
    caller: await resolveCaller(options.caller, req),
  };
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const answer = await runIdempotent(options, incoming, (ctx) => (ctx.replayable ? capture(res, next) : passThrough(res, next)));
  Object.assign(res, original);
  if (answer.kind === "pass") return next();
  if (answer.reply.sent) return;
  send(res, answer.reply);
}

function toBuffer(chunk: unknown, encoding?: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  return Buffer.from(String(chunk), typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
}

/** Runs the rest of the chain with the response held back: nothing reaches the client until the gate has the outcome. */
function capture(res: ServerResponse, next: Next): Promise<HttpReply> {
  return new Promise<HttpReply>((resolve) => {
    const chunks: Buffer[] = [];
    const held = res as unknown as Record<"writeHead" | "write" | "end", (...args: unknown[]) => unknown>;
    held.writeHead = (status: unknown, ...rest: unknown[]) => {
      res.statusCode = status as number;
      const headers = rest.find((arg) => typeof arg === "object" && arg !== null) as OutgoingHttpHeaders | string[] | undefined;
      if (Array.isArray(headers)) for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
      else if (headers) for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
      return res;
    };
    held.write = (chunk: unknown, encoding?: unknown, callback?: unknown) => {
      chunks.push(toBuffer(chunk, encoding));
      const done = typeof encoding === "function" ? encoding : callback;
      if (typeof done === "function") queueMicrotask(() => (done as () => void)());
      return true;
    };
    held.end = (chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== "function") chunks.push(toBuffer(chunk, encoding));
      const done = [chunk, encoding, callback].find((arg) => typeof arg === "function");
      const body = Buffer.concat(chunks);
      resolve({ status: res.statusCode, headers: headerPairs(res), body: body.byteLength ? new Uint8Array(body) : null });
      if (typeof done === "function") queueMicrotask(() => (done as () => void)());
      return res;
    };
    next();
  });
}

function headerPairs(res: ServerResponse): [string, string][] {
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.push([name, String(one)]);
  }
  return headers;
}

/** A route that never replays: the rest of the chain writes straight to the client; the gate gets status and headers once it is sent. */
function passThrough(res: ServerResponse, next: Next): Promise<HttpReply> {
  return new Promise<HttpReply>((resolve) => {
    const done = () => resolve({ status: res.statusCode, headers: headerPairs(res), body: null, sent: true });
    res.once("finish", done);
    res.once("close", done);
    next();
  });
}

function send(res: ServerResponse, reply: HttpReply): void {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of reply.headers) grouped.set(name.toLowerCase(), [...(grouped.get(name.toLowerCase()) ?? []), value]);
  for (const [name, values] of grouped) res.setHeader(name, values.length === 1 ? values[0]! : values);
  res.removeHeader("transfer-encoding");
  if (reply.body) res.setHeader("content-length", reply.body.byteLength);
  else res.removeHeader("content-length");
  res.statusCode = reply.status;
  res.end(reply.body ? Buffer.from(reply.body) : undefined);
}
