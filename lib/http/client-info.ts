import { clientIp, reportedForwardedFor } from "./client-address";
import type { HeaderReader } from "./header-reader";

/** Where a request came from, for the audit log. */
export interface ClientInfo {
  /**
   * The client address our server resolved (client-address.ts: the socket, or the first hop
   * before the trusted proxies), plus any X-Forwarded-For chain as the client reported it,
   * labelled so, never taken for the address.
   */
  ip: string | null;
  userAgent: string | null;
}

const clip = (value: string | null, max: number): string | null => (value ? value.slice(0, max) : null);

export function clientInfo(req: { headers: HeaderReader }): ClientInfo {
  const ip = clientIp(req.headers);
  const reported = reportedForwardedFor(req.headers);
  const from = reported ? `${ip ?? "unknown"} (x-forwarded-for: ${reported})` : ip;
  return { ip: clip(from, 200), userAgent: clip(req.headers.get("user-agent"), 500) };
}
