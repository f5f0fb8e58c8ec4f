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
]);
const DROPPED_RESPONSE = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "trailer", "proxy-authenticate"]);

/** The caller's headers minus transport, credentials, Idemgate's own and the key headers (the gate's key replaces them). */
export function forwardedRequestHeaders(incoming: Headers, keyHeaders: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const keys = new Set(keyHeaders.map((name) => name.toLowerCase()));
  incoming.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (DROPPED_REQUEST.has(lower) || lower.startsWith("idemgate-") || keys.has(lower)) return;
    headers[lower] = value;
  });
  return headers;
}

export function returnedResponseHeaders(upstream: Headers): [string, string][] {
  const headers: [string, string][] = [];
  upstream.forEach((value, name) => {
    if (!DROPPED_RESPONSE.has(name.toLowerCase())) headers.push([name, value]);
  });
  return headers;
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
