import { env } from "../env";
import { AppError } from "../server/app-error";
import { cancellationsIn } from "../server/gateways/mcp/in-flight-calls";
import { resourceUpdateStream } from "../server/gateways/mcp/resource-updates";
import { services } from "../server/composition-root";
import { agentActor } from "../server/operators/operator-audit";
import { bearerToken } from "./bearer-token";
import { publicOrigin } from "./public-origin";
import { mayParseExactly, parseClientJson } from "../sdk/exact-json";
import { clientInfo } from "./client-info";
import { type BodySource, readBoundedBody, withBody } from "./bounded-body";
import { withIncomingTrace } from "../telemetry/spans";

const SESSION_HEADER = "mcp-session-id";

/** A JSON-RPC error outside any request (auth, routing, sessions), as MCP clients expect it. */
function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers: { "cache-control": "no-store", ...headers } });
}

/** A body refused for its size (413) or its content coding (415), as a JSON-RPC error; anything else is rethrown. */
function refusedBody(error: unknown): Response {
  if (error instanceof AppError && (error.code === "payload_too_large" || error.code === "unsupported_media_type")) {
    return rpcError(error.code === "payload_too_large" ? 413 : 415, -32600, error.message);
  }
  throw error;
}

function isInitialize(body: unknown): body is { method: "initialize"; params?: { protocolVersion?: string; clientInfo?: { name?: string } } } {
  return typeof body === "object" && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === "initialize";
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * MCP clients are not browsers; a request with an `Origin` comes from a web page, and the spec has
 * servers validate it against DNS rebinding: only loopback pages and the gate's own public origin
 * (`BETTER_AUTH_URL`) may call.
 */
function foreignOrigin(req: Request): string | null {
  const origin = req.headers.get("origin");
  if (!origin) return null;
  try {
    const url = new URL(origin);
    const configured = env().BETTER_AUTH_URL;
    if (LOOPBACK.has(url.hostname) || (configured && new URL(configured).origin === url.origin)) return null;
  } catch {
    // Not a URL: refused below.
  }
  return origin;
}


/**
 * The tools/call arguments of a body with a number a double cannot hold as written (or an object
 * shaped like one of the gate's stand-ins), parsed as the client wrote them (exact-json.ts), by
 * JSON-RPC id: the gate fingerprints those, so two calls that differ only in such a number are two
 * payloads. Undefined for every other body.
 */
function exactToolArguments(text: string): Map<string, unknown> | undefined {
  if (!mayParseExactly(text)) return undefined;
  const exact = parseClientJson(text);
  const byId = new Map<string, unknown>();
  for (const message of Array.isArray(exact) ? exact : [exact]) {
    const { id, method, params } = (message ?? {}) as { id?: unknown; method?: unknown; params?: { arguments?: unknown } };
    if (method === "tools/call" && (typeof id === "string" || typeof id === "number") && params?.arguments !== undefined) byId.set(String(id), params.arguments);
  }
  return byId;
}

/**
 * A client-sent `idempotencyKey` on tools/call (the MCP SEP on request idempotency) by JSON-RPC
 * id: the SDK's request schema drops fields it does not know, so it is read from the raw body.
 */
function idempotencyKeys(body: unknown): Map<string, unknown> {
  const keys = new Map<string, unknown>();
  for (const message of Array.isArray(body) ? body : [body]) {
    const { id, method, params } = (message ?? {}) as { id?: unknown; method?: unknown; params?: { idempotencyKey?: unknown } };
    if (method === "tools/call" && (typeof id === "string" || typeof id === "number") && params?.idempotencyKey !== undefined) keys.set(String(id), params.idempotencyKey);
  }
  return keys;
}

/**
 * The MCP endpoint's one wrapper: the project API key as bearer token, the upstream by name, the
 * gateway's own sessions (issued on `initialize`, kept in the database, so no sticky routing),
 * then the SDK's handler for both protocol eras. Served by Next.js (app/mcp/[upstream]) and by the
 * lean path (mcp-lean.ts), which hands over the Node request as `body`, read here as it arrives
 * (no web stream in between; otherwise the body is the web request's own), and the moment it took
 * the request as `receivedAt`, where a result's `idemgate/timing` starts.
 */
export function mcpRoute() {
  return async (req: Request, context: { params: Promise<Record<string, string | string[]>> }, lean: { body?: BodySource; receivedAt?: number } = {}): Promise<Response> => {
    const receivedAt = lean.receivedAt ?? performance.now();
    try {
      const origin = foreignOrigin(req);
      if (origin) return rpcError(403, -32001, `requests from web pages at ${origin.slice(0, 100)} are refused`);
      const token = bearerToken(req);
      const principal = token ? await services().gate.auth.authenticate(token) : null;
      if (!principal) {
        return rpcError(401, -32001, token ? "the API key is unknown or revoked" : "send the project API key as `Authorization: Bearer ig_…`", {
          "www-authenticate": 'Bearer realm="idemgate"',
        });
      }
      const name = String((await context.params).upstream ?? "");
      const mcp = services().mcp;
      const upstream = await mcp.gateway.resolve(principal.projectId, name).catch((error: unknown) => {
        if (error instanceof AppError && error.code === "not_found") return null;
        throw error;
      });
      if (!upstream) return rpcError(404, -32001, `no MCP upstream named ${name} in this project`);

      const sessionId = req.headers.get(SESSION_HEADER);
      const session = sessionId ? await mcp.sessions.find(sessionId, principal.projectId, name) : null;
      if (sessionId && !session) {
        return rpcError(404, -32001, "session not found or ended: initialize again");
      }
      if (req.method === "DELETE") {
        if (!sessionId) return rpcError(400, -32600, `send the ${SESSION_HEADER} header to end a session`);
        await mcp.sessions.end(principal.projectId, sessionId);
        return new Response(null, { status: 200 });
      }

      // A session's standalone GET stream carries its resource updates (the SDK's stateless
      // fallback answers GET 405). Without a session there is nothing to deliver: the SDK answers.
      if (req.method === "GET" && sessionId) {
        if (!req.headers.get("accept")?.includes("text/event-stream")) return rpcError(406, -32600, "the GET stream needs `Accept: text/event-stream`");
        const { projectId } = principal;
        return resourceUpdateStream(
          {
            connect: (onUpdated) => mcp.gateway.subscriber(upstream, (client) => client.setNotificationHandler("notifications/resources/updated", onUpdated)),
            // Re-checked each round: a session ended (DELETE on any instance, or expired) ends its stream.
            subscriptions: async () => ((await mcp.sessions.find(sessionId, projectId, name)) ? mcp.sessions.subscriptions(sessionId) : null),
          },
          req.signal,
        );
      }

      // The body is read here, once and bounded (a chunked body has no Content-Length to trust);
      // one that is not JSON goes to the SDK as the bytes read, for its own parse error.
      let parsedBody: unknown;
      let exactArguments: Map<string, unknown> | undefined;
      let request = req;
      if (req.method === "POST") {
        const bytes = await readBoundedBody(req.headers, lean.body ?? req.body).catch((error: unknown) => refusedBody(error));
        if (bytes instanceof Response) return bytes;
        try {
          const text = bytes.toString("utf8");
          parsedBody = JSON.parse(text);
          exactArguments = exactToolArguments(text);
        } catch {
          request = withBody(req, bytes);
        }
      }
      const actor = agentActor(principal, clientInfo(req));
      const dashboardOrigin = publicOrigin(req);
      mcp.bindScope(request, {
        caller: { projectId: principal.projectId, apiKeyId: principal.apiKeyId, actor, sessionId, runHeader: req.headers.get("idemgate-run-id"), dashboardOrigin },
        upstream,
        idempotencyKeys: idempotencyKeys(parsedBody),
        exactArguments,
        inflight: mcp.inflight,
        sessionLogLevel: session?.logLevel ?? null,
        receivedAt,
      });
      // A 2025-era client cancels with a POST of its own, which a fresh SDK server would not tie to
      // the call it names: hand it to that call here (when this instance is serving it).
      for (const { requestId, reason } of cancellationsIn(parsedBody)) {
        mcp.inflight.cancel({ projectId: principal.projectId, apiKeyId: principal.apiKeyId, sessionId, requestId }, reason);
      }
      const response = await withIncomingTrace(req.headers, () => mcp.handler.fetch(request, parsedBody === undefined ? undefined : { parsedBody }));
      if (!isInitialize(parsedBody) || !response.ok || sessionId) return response;

      const issued = await mcp.sessions.open({
        projectId: principal.projectId,
        upstream: name,
        apiKeyId: principal.apiKeyId,
        protocolVersion: parsedBody.params?.protocolVersion ?? null,
        clientName: parsedBody.params?.clientInfo?.name?.slice(0, 200) ?? null,
      });
      const headers = new Headers(response.headers);
      headers.set(SESSION_HEADER, issued);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    } catch (error) {
      const unavailable = error instanceof AppError && (error.code === "store_unavailable" || error.code === "contention");
      if (!unavailable) console.error("[idemgate] mcp endpoint:", error);
      return rpcError(unavailable ? 503 : 500, -32603, unavailable ? "the gate is unavailable for a moment: retry" : "internal error", unavailable ? { "retry-after": "1" } : {});
    }
  };
}
