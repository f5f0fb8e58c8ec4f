import { type McpHttpHandler, createMcpHandler } from "@modelcontextprotocol/server";
import { McpSessionRepository } from "../../store/prisma/mcp-session-repository";
import { getGate } from "../gate";
import { getOperators } from "../operator-context";
import { assertOutboundAllowed, outboundFetch } from "../outbound";
import { getUpstreams } from "../upstreams/upstream-context";
import { McpGateway } from "./mcp-gateway";
import { mcpServerFactory } from "./mcp-server-factory";
import { McpSessions } from "./mcp-sessions";
import { UpstreamConnector } from "./upstream-connector";

export interface Mcp {
  gateway: McpGateway;
  sessions: McpSessions;
  handler: McpHttpHandler;
}

const holder = globalThis as unknown as { __idemgateMcp?: Mcp };

/** The process's MCP gateway (moves into lib/server/composition-root.ts once that exists). */
export function getMcp(): Mcp {
  if (!holder.__idemgateMcp) {
    const upstreams = getUpstreams();
    // Every upstream request goes through the project's outbound allowlist.
    const fetchFor = (projectId: string) => (url: string | URL, init?: RequestInit) =>
      outboundFetch(projectId, url, { method: init?.method, headers: init?.headers, body: init?.body as string | null | undefined, signal: init?.signal ?? undefined });
    const checkOutbound = async (projectId: string, url: string) => void (await assertOutboundAllowed(projectId, url));
    const gateway = new McpGateway(getGate().service, upstreams.service, new UpstreamConnector(fetchFor), checkOutbound, getGate().policies, () => getOperators().resends);
    holder.__idemgateMcp = {
      gateway,
      sessions: new McpSessions(new McpSessionRepository(upstreams.prisma)),
      // 2026-07-28 requests are served natively; 2025-era ones by the SDK's stateless fallback.
      handler: createMcpHandler(mcpServerFactory(gateway), { legacy: "stateless" }),
    };
  }
  return holder.__idemgateMcp;
}
