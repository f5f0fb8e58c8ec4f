import type { ClientView } from "../../../http/client-address";

/** Never forwarded: they describe this hop, carry the caller's gate credentials, or are Idemgate's own. */
const DROPPED_REQUEST = new Set([
  "host",
  "authorization",
  "cookie",
  "proxy-authorization",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "content-length",
  "expect",
  "traceparent",
  "tracestate",
  "x-request-id",
  // Who sent the request and to where: set by the gate from what it vouches for (clientHeaders),
  // never passed on as a client wrote them, nor as Next.js fills them in (the gate's own port).
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-real-ip",
]);
/** Idemgate's own headers, the caller's and those its server stamps on a request (client-address.ts): never sent upstream. */
const OWN_PREFIXES = ["idemgate-", "x-idemgate-"];
const DROPPED_RESPONSE = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "trailer", "proxy-authenticate"]);
/** Hop-by-hop in either direction too: a pre-standard Connection some clients still send (RFC 9110 §7.6.1). */
const PROXY_CONNECTION = "proxy-connection";

/** What the gateway adds to Via in both directions (RFC 9110 §7.6.3): the protocol it received, and its name. */
export const VIA = "1.1 idemgate";

/**
 * The field names a message's Connection header lists: options for this hop only, never
 * forwarded (RFC 9110 §7.6.1), whatever their name.
 */
function connectionOptions(headers: Headers): Set<string> {
  const names = new Set<string>([PROXY_CONNECTION]);
  for (const token of (headers.get("connection") ?? "").split(",")) {
    const name = token.trim().toLowerCase();
    if (name) names.add(name);
  }
  return names;
}

function withVia(received: string | null): string {
  return received ? `${received}, ${VIA}` : VIA;
}

/**
 * The caller's headers minus transport (hop-by-hop, and any named in Connection), credentials,
 * Idemgate's own and the key headers (the gate's key replaces them); Via names this hop.
 */
export function forwardedRequestHeaders(incoming: Headers, keyHeaders: string[], client?: ClientView): Record<string, string> {
  const headers: Record<string, string> = {};
  const keys = new Set(keyHeaders.map((name) => name.toLowerCase()));
  const hop = connectionOptions(incoming);
  incoming.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (DROPPED_REQUEST.has(lower) || hop.has(lower) || OWN_PREFIXES.some((prefix) => lower.startsWith(prefix)) || keys.has(lower)) return;
    headers[lower] = value;
  });
  headers.via = withVia(incoming.get("via"));
  return client ? { ...headers, ...clientHeaders(client) } : headers;
}

/**
 * X-Forwarded-For/-Host/-Proto and Forwarded (RFC 7239) as the client sees the request: its
 * address (as the socket and trusted proxies vouch for it), the host it addressed and the protocol
 * it used. Never the gate's own address or port, never what a client claims about itself.
 */
export function clientHeaders(client: ClientView): Record<string, string> {
  const headers: Record<string, string> = { "x-forwarded-proto": client.proto };
  const forwarded: string[] = [];
  if (client.ip) {
    headers["x-forwarded-for"] = client.ip;
    forwarded.push(`for=${client.ip.includes(":") ? `"[${client.ip}]"` : client.ip}`);
  }
  if (client.host) {
    headers["x-forwarded-host"] = client.host;
    forwarded.push(`host=${JSON.stringify(client.host)}`);
  }
  forwarded.push(`proto=${client.proto}`);
  headers.forwarded = forwarded.join(";");
  return headers;
}

/** The upstream's headers minus transport (hop-by-hop, and any named in its Connection); Via names this hop. */
export function returnedResponseHeaders(upstream: Headers): [string, string][] {
  const headers: [string, string][] = [];
  const hop = connectionOptions(upstream);
  upstream.forEach((value, name) => {
    const lower = name.toLowerCase();
    // An upstream never speaks in Idemgate's own headers (idemgate-content-encoding is the gateway's, http-gateway.ts).
    if (!DROPPED_RESPONSE.has(lower) && !hop.has(lower) && lower !== "via" && !lower.startsWith("idemgate-")) headers.push([name, value]);
  });
  headers.push(["via", withVia(upstream.get("via"))]);
  return headers;
}

/**
 * The query as the client sent it, byte for byte (`?…`, or "" for none): from the request target
 * the server recorded as it arrived, else the parsed URL's (which a URL parser may have re-encoded).
 */
export function rawQuery(rawTarget: string | null, parsedSearch: string): string {
  if (rawTarget === null) return parsedSearch;
  const at = rawTarget.indexOf("?");
  if (at === -1) return "";
  // A lone "?" is no query at all to a URL parser; the upstream gets it as sent.
  return rawTarget.slice(at);
}

/** The upstream URL for a gateway path: the base URL's path, then each segment re-encoded; `.` and `..` are refused. */
export function upstreamUrl(base: string, segments: string[], search: string): URL | null {
  if (segments.some((segment) => segment === "." || segment === ".." || segment === "")) return null;
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/+$/, "");
  url.pathname = `${prefix}/${segments.map(encodeURIComponent).join("/")}`;
  url.search = search;
  return url;
}
