import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { PLAIN_SEGMENT } from "./plain-segment";
import { mcpRoute } from "./with-mcp-route";

/**
 * The MCP gateway (`/mcp/{upstream}`) on the lean path: the same route (with-mcp-route.ts: Origin
 * check, auth, sessions, bounded body, incoming trace, cancellation, the SDK's handler for both
 * eras, SSE streams) handed a web Request built straight from Node's request, and its Response
 * written straight to Node's, without Next.js's router and request plumbing in between (issue 34
 * §4: the part of a replay's time that was neither the gate nor the SDK). Only what Next.js would
 * route to app/mcp/[upstream] exactly: one plain segment, POST, GET or DELETE; anything else
 * (an escaped name, a trailing slash, HEAD, OPTIONS) goes to Next.js as before.
 */
export interface McpRouteMatch {
  upstream: string;
}

const MCP = "/mcp/";

export function matchMcpRoute(method: string | undefined, url: string | undefined): McpRouteMatch | null {
  if (!url || (method !== "POST" && method !== "GET" && method !== "DELETE") || !url.startsWith(MCP)) return null;
  const q = url.indexOf("?");
  const upstream = url.slice(MCP.length, q === -1 ? undefined : q);
  return PLAIN_SEGMENT.test(upstream) ? { upstream } : null;
}

const route = mcpRoute();

/**
 * Serves a matched request. `origin` is what Next.js puts before the path of a route handler's
 * `request.url` (its own hostname and port, `https` when X-Forwarded-Proto says so), so the route
 * sees the same URL on either path.
 */
export async function serveMcp(match: McpRouteMatch, req: IncomingMessage, res: ServerResponse, headers: ReadonlyArray<readonly [string, string]>, origin: string): Promise<void> {
  const receivedAt = performance.now();
  // As Next.js's request signal: aborted when the client goes away before the answer is written
  // (cancels the call's upstream request and ends a stream).
  const aborted = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) aborted.abort(new Error("the client went away"));
  });
  const proto = String(req.headers["x-forwarded-proto"] ?? "").includes("https") ? "https" : "http";
  const request = new Request(`${proto}://${origin}${req.url}`, { method: req.method, headers: webHeaders(req.headers), signal: aborted.signal });
  const response = await route(request, { params: Promise.resolve({ upstream: match.upstream }) }, { body: req.method === "POST" ? req : undefined, receivedAt });
  await writeResponse(response, res, headers);
}

/** A Node request's headers as Next.js hands them to a route (repeats joined, as Node joined them). */
function webHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else headers.append(name, value);
  }
  return headers;
}

/** What Next.js never copies from a route's Response (Node frames the body itself). */
const DROPPED = new Set(["content-length", "content-encoding", "transfer-encoding"]);
/** Headers Next.js adds to the app's own instead of leaving out when both have one. */
const APPENDED = new Set(["set-cookie", "www-authenticate", "proxy-authenticate", "vary"]);

/**
 * The Response as Next.js's sendResponse writes it: the app's headers, then the route's (dropped
 * when the app already has one, except those that take several values), then the body, each chunk
 * as it comes (an SSE stream's events reach the client one by one), with backpressure.
 */
async function writeResponse(response: Response, res: ServerResponse, appHeaders: ReadonlyArray<readonly [string, string]>): Promise<void> {
  for (const [name, value] of appHeaders) res.setHeader(name, value);
  response.headers.forEach((value, name) => {
    if (DROPPED.has(name)) return;
    if (APPENDED.has(name)) res.appendHeader(name, value);
    else if (res.getHeader(name) === undefined) res.setHeader(name, value);
  });
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const gone = () => void reader.cancel().catch(() => undefined);
  res.once("close", gone);
  try {
    // The first write carries the headers with it, as Next.js sends them with the first chunk.
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    // The stream failed after its headers were sent: cut the connection so the client sees an
    // incomplete answer, not a complete empty one.
    res.destroy(error as Error);
  } finally {
    res.off("close", gone);
  }
}

/** Until the client has taken what was written, or has gone away. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
