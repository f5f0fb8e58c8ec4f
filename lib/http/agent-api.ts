import type { IncomingMessage, ServerResponse } from "node:http";
import { services } from "../server/composition-root";
import {
  beginRoute,
  callStatusRoute,
  checkRoute,
  completeRoute,
  heartbeatRoute,
  previewRoute,
  resendRequestRoute,
  resendRoute,
} from "./agent-routes";
import { nodeHeaders } from "./header-reader";
import { type McpRouteMatch, matchMcpRoute, serveMcp } from "./mcp-lean";
import { type AgentRouteSpec, runApiRoute } from "./with-api-route";
import { processSlot } from "../process-wide";
import { PLAIN_SEGMENT } from "./plain-segment";

/**
 * The lean agent path: the agent API's routes served straight from Node's request, without
 * Next.js's router and request plumbing (each begin and complete of every agent pays for a
 * decision; issue 21). scripts/serve.mjs — `npm start` — puts it in front of Next.js's request
 * handler on the one port: a request this module matches is served here, anything else (the
 * dashboard, every other API route, and every request it does not recognise exactly, down to a
 * trailing slash, an escaped path segment or another method) goes to Next.js, which answers it as
 * it always has. Both paths run the same route specs (agent-routes.ts) through runApiRoute, so auth,
 * parsing, answers and errors are one implementation.
 */
export interface AgentApi {
  match(method: string | undefined, url: string | undefined): LeanMatch | null;
  /**
   * Serves a matched request; `headers` are written on every answer (the app's security headers);
   * `origin` is the `host:port` Next.js names itself by in a route's request URL.
   */
  serve(match: LeanMatch, req: IncomingMessage, res: ServerResponse, headers: ReadonlyArray<readonly [string, string]>, origin: string): Promise<void>;
  /** On shutdown, after the server stopped taking requests: flush and close the services. */
  close(): Promise<void>;
}

export interface AgentRouteMatch {
  spec: AgentRouteSpec;
  params: Record<string, string>;
}

/** A request the lean path serves: an agent API route, or the MCP gateway (mcp-lean.ts). */
export type LeanMatch = AgentRouteMatch | (McpRouteMatch & { spec?: undefined });

function matchLean(method: string | undefined, url: string | undefined): LeanMatch | null {
  return matchAgentRoute(method, url) ?? matchMcpRoute(method, url);
}

const CALLS = "/api/v1/calls/";
const RESEND_REQUESTS = "/api/v1/resend-requests/";
const CALL_ACTIONS: Record<string, AgentRouteSpec> = { complete: completeRoute, heartbeat: heartbeatRoute, resend: resendRoute, check: checkRoute };

/** The agent route a request names, exactly as Next.js's file routes resolve it; null when anything is unusual. */
export function matchAgentRoute(method: string | undefined, url: string | undefined): AgentRouteMatch | null {
  if (!url || (method !== "GET" && method !== "POST")) return null;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (path.startsWith(CALLS)) {
    const parts = path.slice(CALLS.length).split("/");
    const [first, action] = parts;
    if (!first || !PLAIN_SEGMENT.test(first)) return null;
    if (parts.length === 1) {
      // Static segments win over [callId]; they answer POST only (Next.js gives other methods 405).
      if (first === "begin" || first === "preview") return method === "POST" ? { spec: first === "begin" ? beginRoute : previewRoute, params: {} } : null;
      return method === "GET" ? { spec: callStatusRoute, params: { callId: first } } : null;
    }
    const spec = parts.length === 2 && method === "POST" && action ? CALL_ACTIONS[action] : undefined;
    return spec ? { spec, params: { callId: first } } : null;
  }
  if (path.startsWith(RESEND_REQUESTS) && method === "GET") {
    const requestId = path.slice(RESEND_REQUESTS.length);
    return PLAIN_SEGMENT.test(requestId) ? { spec: resendRequestRoute, params: { requestId } } : null;
  }
  return null;
}

async function serve(match: LeanMatch, req: IncomingMessage, res: ServerResponse, headers: ReadonlyArray<readonly [string, string]>, origin: string): Promise<void> {
  if (!match.spec) return serveMcp(match, req, res, headers, origin);
  const result = await runApiRoute(match.spec, {
    headers: nodeHeaders(req.headers),
    params: async () => match.params,
    searchParams: () => new URLSearchParams(),
    body: req,
  });
  const out: Record<string, string | number> = Object.fromEntries(headers);
  Object.assign(out, result.headers);
  out["content-length"] = Buffer.byteLength(result.body);
  // A body refused for its size is still being read and dropped (bounded-body.ts): the connection
  // stays open for it, so a client still sending reads this answer instead of a reset.
  res.writeHead(result.status, out);
  res.end(result.body);
}

const offered = processSlot<AgentApi>("agentApi");

/** Called by the boot hook (instrumentation.ts): offers the lean path to scripts/serve.mjs, which looks for it after Next.js is prepared. */
export function installAgentApi(): void {
  offered.getOrCreate(() => ({ match: matchLean, serve, close: () => services().close() }));
}
