import { AppError } from "../server/app-error";

/**
 * CSRF defence for cookie-authenticated state changes, on top of SameSite=Lax cookies: the
 * browser's Origin (or, lacking it, Referer) must be this site, and Fetch Metadata must not say
 * cross-site. "This site" is the configured public URL or, unset, the request's own origin.
 */
export function requireSameOrigin(req: Request, publicUrl: string | undefined): void {
  const allowed = siteOrigins(req);
  if (publicUrl) allowed.add(new URL(publicUrl).origin);
  const site = req.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw rejected(`a ${site} request`);
  const origin = req.headers.get("origin") ?? refererOrigin(req.headers.get("referer"));
  if (!origin) throw rejected("no Origin header");
  if (!allowed.has(origin)) throw rejected(`Origin ${origin}`);
}

/**
 * The origins the browser addressed: the Host header it sent, under the scheme the server saw
 * (or the proxy reports). An attacker's page cannot change the victim's Host header, only its
 * own Origin, so this is what a cross-site request fails to match. (Not `req.url` alone: Next.js
 * builds it from its own listen address, which is `localhost` or whatever -H/HOSTNAME says.)
 */
export function siteOrigins(req: Request): Set<string> {
  const url = new URL(req.url);
  const origins = new Set([url.origin]);
  const host = req.headers.get("host");
  if (host) {
    origins.add(`${url.protocol}//${host}`);
    const forwarded = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
    if (forwarded === "http" || forwarded === "https") origins.add(`${forwarded}://${host}`);
  }
  return origins;
}

function refererOrigin(referer: string | null): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

function rejected(what: string): AppError {
  return new AppError("csrf_rejected", `cross-site request refused (${what}): operator changes must come from this site`);
}
