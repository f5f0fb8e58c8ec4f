import { getOperators } from "../server/operator-context";
import { AUTH_BASE_PATH } from "./auth";

/**
 * The better-auth endpoints we route, and no others: there is no public sign-up (admins create
 * accounts), and nothing we do not use is exposed. better-auth itself checks the Origin of every
 * cookie-carrying POST here.
 */
const ROUTED = new Set(["/sign-in/email", "/sign-out", "/get-session", "/change-password"]);

export async function handleAuth(req: Request): Promise<Response> {
  const path = new URL(req.url).pathname.slice(AUTH_BASE_PATH.length);
  if (!ROUTED.has(path)) {
    return Response.json(
      { error: { code: "not_found", message: `no auth endpoint ${path}`, retryable: false } },
      { status: 404, headers: { "cache-control": "no-store" } },
    );
  }
  return getOperators().auth.handler(req);
}
