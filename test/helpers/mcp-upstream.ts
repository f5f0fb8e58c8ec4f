import { appendFileSync, existsSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** One side effect the upstream performed, appended to its effects file as a JSON line. */
export interface Effect {
  tool: string;
  args: Record<string, unknown>;
  idempotencyKey: unknown;
}

export const UPSTREAM_TOOLS = [
  {
    name: "refund_order",
    description: "Refund an order (a side effect: money moves)",
    inputSchema: { type: "object", properties: { orderId: { type: "string" }, amount: { type: "number" }, note: { type: "string" }, slowMs: { type: "number" } }, required: ["orderId"] },
    annotations: { destructiveHint: false, idempotentHint: false, readOnlyHint: false },
  },
  {
    name: "get_order",
    description: "Read an order",
    inputSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "delete_customer",
    description: "Delete a customer for good",
    inputSchema: { type: "object", properties: { customerId: { type: "string" } }, required: ["customerId"] },
    annotations: { destructiveHint: true },
  },
  {
    name: "decline",
    description: "Always answers a tool error",
    inputSchema: { type: "object", properties: { orderId: { type: "string" } } },
  },
  {
    name: "sever",
    description: "Takes effect, then the connection drops (or, gracefully, the response stream ends) before it answers (the answer is lost)",
    inputSchema: { type: "object", properties: { orderId: { type: "string" }, gracefully: { type: "boolean" } } },
  },
  {
    name: "ship_order",
    description: "Ship an order (slow; stops if the request is cancelled in time)",
    inputSchema: { type: "object", properties: { orderId: { type: "string" }, slowMs: { type: "number" } }, required: ["orderId"] },
  },
  {
    name: "garbled",
    description: "Answers something that is not a tool result",
    inputSchema: { type: "object", properties: {} },
  },
];

/**
 * The upstream's tools, built with the official SDK (v1 low-level Server, so it can also answer
 * the malformed reply a broken server would). Every side-effecting call appends a line to the
 * effects file before answering: that file is what "exactly once" is counted against.
 */
export function upstreamServer(effectsFile: string, sever: (gracefully: boolean) => void = () => undefined): Server {
  const server = new Server({ name: "test-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: UPSTREAM_TOOLS }));
  // Every cancellation received is noted (as tool `notifications/cancelled`), then handled as the
  // SDK does: the named request's signal aborts if this server instance is running it (a stateless
  // HTTP upstream serves each request on a fresh instance, so there it never is).
  const handlers = (server as unknown as { _notificationHandlers: Map<string, (notification: unknown) => Promise<void>> })._notificationHandlers;
  const sdkCancel = handlers.get("notifications/cancelled");
  handlers.set("notifications/cancelled", async (notification) => {
    const params = (notification as { params?: { reason?: unknown } }).params;
    appendFileSync(effectsFile, `${JSON.stringify({ tool: "notifications/cancelled", args: { reason: params?.reason ?? null }, idempotencyKey: null })}\n`);
    await sdkCancel?.(notification);
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const record = () => appendFileSync(effectsFile, `${JSON.stringify({ tool: request.params.name, args, idempotencyKey: request.params._meta?.["idemgate/key"] ?? null })}\n`);
    const slowMs = typeof args.slowMs === "number" ? args.slowMs : 0;
    const progressToken = request.params._meta?.progressToken;
    if (request.params.name === "ship_order") appendFileSync(effectsFile, `${JSON.stringify({ tool: "ship_order:started", args, idempotencyKey: null })}\n`);
    for (let waited = 0; waited < slowMs; waited += 100) {
      if (extra.signal.aborted && request.params.name === "ship_order") {
        appendFileSync(effectsFile, `${JSON.stringify({ tool: "ship_order:stopped", args, idempotencyKey: request.params._meta?.["idemgate/key"] ?? null })}\n`);
        throw new Error("cancelled");
      }
      if (progressToken !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: waited, total: slowMs } });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    switch (request.params.name) {
      case "refund_order":
        record();
        return { content: [{ type: "text", text: `refunded order ${String(args.orderId)}` }], structuredContent: { refundId: `re_${String(args.orderId)}`, amount: args.amount ?? null } };
      case "ship_order":
        record();
        return { content: [{ type: "text", text: `shipped order ${String(args.orderId)}` }] };
      case "delete_customer":
        record();
        return { content: [{ type: "text", text: `deleted customer ${String(args.customerId)}` }] };
      case "get_order":
        record();
        return { content: [{ type: "text", text: `order ${String(args.orderId)} is paid` }] };
      case "decline":
        record();
        return { content: [{ type: "text", text: "card declined: insufficient funds" }], isError: true };
      case "sever":
        record();
        // `gracefully`: the response stream ends cleanly without the answer (no reset); else the connection drops.
        sever(args.gracefully === true);
        return new Promise<never>(() => undefined);
      case "garbled":
        record();
        return { content: "not a list of content blocks" } as never;
      default:
        throw new Error(`unknown tool ${request.params.name}`);
    }
  });
  return server;
}

export interface RunningUpstream {
  url: string;
  effects(): Effect[];
  /** Open TCP connections to it (pooled keep-alive sockets included). */
  connections(): Promise<number>;
  stop(): Promise<void>;
}

/** The upstream on Streamable HTTP (stateless: a fresh server per request), in this process. */
export async function startUpstream(effectsFile: string, port = 0, options: { keepAliveMs?: number; dropReusedAfterIdleMs?: number } = {}): Promise<RunningUpstream> {
  // When the client's request crosses the server's idle close, the server never reads it and the
  // client sees its reused connection reset before any answer. Made deterministic here: a request
  // on a connection idle at least this long is dropped unread (the connection destroyed).
  const lastAnswered = new WeakMap<object, number>();
  const httpServer = http.createServer(async (req, res) => {
    const idleSince = lastAnswered.get(req.socket);
    if (options.dropReusedAfterIdleMs !== undefined && idleSince !== undefined && Date.now() - idleSince >= options.dropReusedAfterIdleMs) {
      req.socket.destroy();
      return;
    }
    res.on("finish", () => lastAnswered.set(req.socket, Date.now()));
    const server = upstreamServer(effectsFile, (gracefully) => {
      if (!gracefully) return void res.socket?.destroy();
      // The answer's event stream opens, then ends without the answer.
      if (!res.headersSent) res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end();
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    res.on("close", () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  // An upstream that closes idle keep-alive connections early (gunicorn's default is 2 s, Node's 5 s).
  if (options.keepAliveMs !== undefined) httpServer.keepAliveTimeout = options.keepAliveMs;
  await new Promise<void>((resolve) => httpServer.listen(port, "127.0.0.1", resolve));
  const address = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    effects: () => readEffects(effectsFile),
    connections: () => new Promise<number>((resolve, reject) => httpServer.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
    stop: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}

export function readEffects(file: string): Effect[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Effect);
}
