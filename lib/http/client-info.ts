/** Where a request came from, for the audit log: as reported, never interpreted or trusted. */
export interface ClientInfo {
  /** The x-forwarded-for chain (Next.js appends the peer address), else x-real-ip. */
  ip: string | null;
  userAgent: string | null;
}

const clip = (value: string | null, max: number): string | null => (value ? value.slice(0, max) : null);

export function clientInfo(req: Request): ClientInfo {
  return {
    ip: clip(req.headers.get("x-forwarded-for") ?? req.headers.get("x-real-ip"), 200),
    userAgent: clip(req.headers.get("user-agent"), 500),
  };
}
