import { type CallToolResult, type ListToolsResult, type McpRequestContext, ProtocolError, ProtocolErrorCode, Server, inputRequired } from "@modelcontextprotocol/server";
import type { Client } from "@modelcontextprotocol/client";
import type { ResolvedUpstream } from "../upstreams/upstream-service";
import type { InFlightCalls } from "./in-flight-calls";
import type { McpCaller } from "./call-identity";
import type { McpGateway, ToolCallParams } from "./mcp-gateway";
import { MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTION_URI, type McpSessions } from "./mcp-sessions";
import { isOperatorWait } from "./operator-sign-off";
import { LOG_LEVEL_META_KEY, type LogRelay, asLogLevel } from "./upstream-logs";

/** What the HTTP wrapper authenticated for one request; the factory reads it back by request. */
export interface McpRequestScope {
  caller: McpCaller;
  upstream: ResolvedUpstream;
  /** Client-sent `idempotencyKey`s of the body's tools/call requests, by JSON-RPC id (the SDK's schema drops the field). */
  idempotencyKeys: Map<string, unknown>;
  /** The arguments of the body's tools/call requests with their numbers as written, by JSON-RPC id, where they differ (with-mcp-route.ts). */
  exactArguments?: Map<string, unknown>;
  /** Where this request's tools/call registers, so the client's `notifications/cancelled` reaches it. */
  inflight: InFlightCalls;
  /** The level the request's session set with logging/setLevel (session-era clients), if any. */
  sessionLogLevel: string | null;
  /** When the server took the request (performance.now()): a result's `idemgate/timing` counts from here. */
  receivedAt?: number;
}

const scopes = new WeakMap<Request, McpRequestScope>();

export function bindScope(request: Request, scope: McpRequestScope): void {
  scopes.set(request, scope);
}

/**
 * A fresh SDK server per request (both protocol eras): tools/list passes through, annotations
 * included; tools/call goes through the gate. It holds nothing between requests, so any gate
 * instance can serve any request.
 */
export function mcpServerFactory(gateway: McpGateway, sessions: McpSessions) {
  return (ctx: McpRequestContext): Server => {
    const scope = ctx.requestInfo ? scopes.get(ctx.requestInfo) : undefined;
    if (!scope) throw new Error("an MCP request reached the server factory without an authenticated scope");
    const server = new Server(
      { name: `idemgate/${scope.upstream.row.name}`, version: "0.1.0" },
      // Logging: a tool's log messages travel on its own call's response stream. Resource updates:
      // subscriptions are stored per session and delivered on the session's GET stream by whichever
      // instance holds it (resource-updates.ts).
      { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} } },
    );
    // Kept on the session's row, not in this per-request server: the next call may reach another instance.
    server.setRequestHandler("logging/setLevel", async (request) => {
      if (scope.caller.sessionId) await sessions.setLogLevel(scope.caller.projectId, scope.caller.sessionId, request.params.level);
      return {};
    });
    server.setRequestHandler("tools/list", async (_request, context) => (await gateway.listTools(scope.upstream, context.mcpReq.signal)) as ListToolsResult);
    // Resources, prompts and completions pass through ungated (reads by the spec).
    const forward = <T>(context: { mcpReq: { signal: AbortSignal } }, send: (client: Client, options: { signal: AbortSignal }) => Promise<T>) =>
      gateway.forward(scope.upstream, (client) => send(client, { signal: context.mcpReq.signal }));
    server.setRequestHandler("resources/list", (request, context) => forward(context, (client, options) => client.listResources(request.params, options)));
    server.setRequestHandler("resources/templates/list", (request, context) => forward(context, (client, options) => client.listResourceTemplates(request.params, options)));
    server.setRequestHandler("resources/read", (request, context) => forward(context, (client, options) => client.readResource(request.params, options)));
    // Kept on the session, answered at once; the instance serving the session's GET stream
    // subscribes its upstream client within a second (the upstream's refusal is logged there).
    const sessionOf = () => {
      if (scope.caller.sessionId) return scope.caller.sessionId;
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "resources/subscribe needs an MCP session (initialize first); 2026-07-28 clients use subscriptions/listen");
    };
    server.setRequestHandler("resources/subscribe", async (request) => {
      const { uri } = request.params;
      if (uri.length > MAX_SUBSCRIPTION_URI) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `a resource URI is at most ${MAX_SUBSCRIPTION_URI} characters`);
      if (!(await sessions.subscribe(sessionOf(), uri))) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `a session holds at most ${MAX_SUBSCRIPTIONS} resource subscriptions: unsubscribe from one first`);
      }
      return {};
    });
    server.setRequestHandler("resources/unsubscribe", async (request) => {
      await sessions.unsubscribe(sessionOf(), request.params.uri);
      return {};
    });
    server.setRequestHandler("prompts/list", (request, context) => forward(context, (client, options) => client.listPrompts(request.params, options)));
    server.setRequestHandler("prompts/get", (request, context) => forward(context, (client, options) => client.getPrompt(request.params, options)));
    server.setRequestHandler("completion/complete", (request, context) => forward(context, (client, options) => client.complete(request.params, options)));
    server.setRequestHandler("tools/call", async (request, context) => {
      const progressToken = context.mcpReq._meta?.progressToken;
      const params: ToolCallParams = {
        ...(request.params as ToolCallParams),
        _meta: context.mcpReq._meta as Record<string, unknown> | undefined,
        idempotencyKey: scope.idempotencyKeys.get(String(context.mcpReq.id)),
        exactArguments: scope.exactArguments?.get(String(context.mcpReq.id)),
      };
      const { caller } = scope;
      const tracked = scope.inflight.track({ projectId: caller.projectId, apiKeyId: caller.apiKeyId, sessionId: caller.sessionId, requestId: context.mcpReq.id });
      const result = await gateway.callTool(scope.caller, scope.upstream, params, {
        signal: context.mcpReq.signal,
        cancelled: tracked.signal,
        receivedAt: scope.receivedAt,
        interactive: takesUrlElicitation(context.mcpReq.envelope) ? { round: roundOf(context.mcpReq.requestState()) } : undefined,
        log: logRelay(context.mcpReq.envelope, scope.sessionLogLevel, (params) => void context.mcpReq.notify({ method: "notifications/message", params: { ...params } }).catch(() => undefined)),
        onProgress:
          progressToken === undefined
            ? undefined
            : (progress) => void context.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...progress } }).catch(() => undefined),
      }).finally(tracked.done);
      if (isOperatorWait(result)) {
        const { message, path, round } = result.awaitOperator;
        return inputRequired({
          inputRequests: { [OPERATOR_INPUT]: inputRequired.elicitUrl({ message, url: new URL(path, scope.caller.dashboardOrigin).href }) },
          requestState: JSON.stringify({ round: round + 1 }),
        });
      }
      return result as CallToolResult;
    });
    return server;
  };
}

/** A 2026-07-28 request's threshold is in its envelope; a session-era one's on its session row. */
function logRelay(envelope: unknown, sessionLevel: string | null, send: LogRelay["send"]): LogRelay | undefined {
  const fields = (envelope ?? {}) as Record<string, unknown>;
  const level = asLogLevel(fields[LOG_LEVEL_META_KEY] ?? sessionLevel);
  return level ? { level, send } : undefined;
}

/** The input request key of an operator wait (a URL elicitation pointing at the Approvals page). */
const OPERATOR_INPUT = "idemgate/operator";

/** A 2026-07-28 request whose client declared URL-mode elicitation, so it can be asked to wait. */
function takesUrlElicitation(envelope: unknown): boolean {
  const fields = (envelope ?? {}) as Record<string, unknown>;
  const capabilities = fields["io.modelcontextprotocol/clientCapabilities"] as { elicitation?: { url?: unknown } } | undefined;
  return typeof fields["io.modelcontextprotocol/protocolVersion"] === "string" && capabilities?.elicitation?.url !== undefined;
}

/** How many waits this call has had: the state the gateway minted, echoed by the client (untrusted: it only bounds the waits). */
function roundOf(state: unknown): number {
  try {
    const round = (JSON.parse(String(state ?? "{}")) as { round?: unknown }).round;
    return typeof round === "number" && Number.isInteger(round) && round >= 0 ? round : 0;
  } catch {
    return 0;
  }
}
