import { type CallToolResult, type ListToolsResult, type McpRequestContext, Server } from "@modelcontextprotocol/server";
import type { ResolvedUpstream } from "../upstreams/upstream-service";
import type { McpCaller, McpGateway, ToolCallParams } from "./mcp-gateway";

/** What the HTTP wrapper authenticated for one request; the factory reads it back by request. */
export interface McpRequestScope {
  caller: McpCaller;
  upstream: ResolvedUpstream;
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
export function mcpServerFactory(gateway: McpGateway) {
  return (ctx: McpRequestContext): Server => {
    const scope = ctx.requestInfo ? scopes.get(ctx.requestInfo) : undefined;
    if (!scope) throw new Error("an MCP request reached the server factory without an authenticated scope");
    const server = new Server({ name: `idemgate/${scope.upstream.row.name}`, version: "0.1.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async (_request, context) => (await gateway.listTools(scope.upstream, context.mcpReq.signal)) as ListToolsResult);
    server.setRequestHandler("tools/call", async (request, context) => {
      const progressToken = context.mcpReq._meta?.progressToken;
      const params = { ...(request.params as ToolCallParams), _meta: context.mcpReq._meta as Record<string, unknown> | undefined };
      const result = await gateway.callTool(scope.caller, scope.upstream, params, {
        signal: context.mcpReq.signal,
        onProgress:
          progressToken === undefined
            ? undefined
            : (progress) => void context.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...progress } }).catch(() => undefined),
      });
      return result as CallToolResult;
    });
    return server;
  };
}
