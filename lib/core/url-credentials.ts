/**
 * Credentials inside URLs. A URL's userinfo (`user:password@`) is refused wherever a URL is
 * accepted (credentials go in a write-only secret), and stripped wherever a stored URL is shown,
 * for rows and audit entries written before it was refused.
 */

// Greedy up to the last `@` before the path, as the WHATWG URL parser splits userinfo from the host.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

/** Whether an absolute URL has userinfo: `https://@host` has none (the parser drops it). */
export function hasUserinfo(text: string): boolean {
  try {
    const url = new URL(text);
    return url.username !== "" || url.password !== "";
  } catch {
    return false;
  }
}

/** The text with every URL's userinfo removed (`https://u:p@host/x` → `https://host/x`); the rest as written. */
export function stripUserinfo(text: string): string {
  return text.replace(USERINFO, "$1");
}

/** `scheme://host[:port]`: all that may be shown of a URL whose path or query may itself be the secret. */
export function originOf(text: string): string {
  const url = new URL(text);
  return `${url.protocol}//${url.host}`;
}

/**
 * What an alert channel's stored display may show. Channels added before #43 stored a webhook's
 * `host/path` (a receiver's secret may be its path): only the host is kept of such a value.
 */
export function channelTargetShown(target: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return stripUserinfo(target);
  return stripUserinfo(target).split(/[/?#]/, 1)[0]!;
}

/**
 * An audit entry's detail as shown (list and CSV export): userinfo stripped from every URL in every
 * string, and an alert channel's target reduced to what the channel list shows. Audit rows are
 * append-only, so entries written before userinfo was refused are redacted when read.
 */
export function redactAuditDetail(action: string, detail: unknown): unknown {
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return stripUserinfo(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== "object") return item;
    return Object.fromEntries(Object.entries(item as Record<string, unknown>).map(([name, inner]) => [name, walk(inner)]));
  };
  const shown = walk(detail);
  if (action.startsWith("alert_channel.") && shown !== null && typeof shown === "object" && typeof (shown as { target?: unknown }).target === "string") {
    const record = shown as Record<string, unknown>;
    return { ...record, target: channelTargetShown(record.target as string) };
  }
  return shown;
}
