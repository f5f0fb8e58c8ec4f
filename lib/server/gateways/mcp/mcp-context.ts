import { type McpHttpHandler, createMcpHandler } from "@modelcontextprotocol/server";
import type { Db } from "../../../store/prisma/client";
import { McpSessionRepository } from "../../../store/prisma/mcp-session-repository";
import type { GateService } from "../../gate/gate-service";
import type { OutboundGuard } from "../../outbound/outbound-fetch";
import type { PolicyService } from "../../policies/policy-service";
import type { PreviewService } from "../../multistep/preview-service";
import type { ResendService } from "../../resends/resend-service";
import { InFlightCalls } from "./in-flight-calls";
import { OperatorSignOff } from "./operator-sign-off";
import type { UpstreamService } from "../upstreams/upstream-service";
import { McpGateway } from "./mcp-gateway";
import { bindScope, mcpServerFactory } from "./mcp-server-factory";
import { McpSessions } from "./mcp-sessions";
import { UpstreamConnector } from "./upstream-connector";

export interface Mcp {
  gateway: McpGateway;
  sessions: McpSessions;
  handler: McpHttpHandler;
  /** This process's tools/call requests in flight, for a client's `notifications/cancelled`. */
  inflight: InFlightCalls;
  /**
   * Hands the handler a request's authenticated scope. It travels with the handler because the
   * scopes live in a module-level map: Next.js loads a module once per layer, and the services may
   * have been built by the boot hook's copy, so the route's own import would fill another map.
   */
  bindScope: typeof bindScope;
}

export interface McpDeps {
  gate: GateService;
  upstreams: UpstreamService;
  guard: OutboundGuard;
  policies: PolicyService;
  resends: () => ResendService;
  previews: () => PreviewService;
  db: Db;
}

/** The MCP gateway over the gate and the upstream registry (built once, in lib/server/composition-root.ts). */
export function buildMcp({ gate, upstreams, guard, policies, resends, previews, db }: McpDeps): Mcp {
  // Every upstream request goes through the project's outbound allowlist.
  const fetchFor = (projectId: string) => (url: string | URL, init?: RequestInit) =>
    guard.fetch(projectId, url, { method: init?.method, headers: init?.headers, body: init?.body as string | null | undefined, signal: init?.signal ?? undefined });
  const checkOutbound = async (projectId: string, url: string) => void (await guard.assertAllowed(projectId, url));
  const gateway = new McpGateway(gate, upstreams, new UpstreamConnector(fetchFor), checkOutbound, policies, new OperatorSignOff(resends, previews));
  const sessions = new McpSessions(new McpSessionRepository(db));
  return {
    gateway,
    inflight: new InFlightCalls(),
    sessions,
    // 2026-07-28 requests are served natively; 2025-era ones by the SDK's stateless fallback.
    handler: createMcpHandler(mcpServerFactory(gateway, sessions), { legacy: "stateless" }),
    bindScope,
  };
}
