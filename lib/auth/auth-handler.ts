import { getOperators } from "../server/operator-context";
import { AUTH_BASE_PATH } from "./auth";
import { SignInFailures } from "./sign-in-failures";

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
  const operators = getOperators();
  if (path === "/sign-in/email" && req.method === "POST") return signInWithBackoff(req, operators.auth.handler, new SignInFailures(operators.db.auth.db));
  return operators.auth.handler(req);
}

/**
 * Per-account backoff on top of better-auth's per-address limit, which a botnet spreads thin:
 * after a few wrong passwords for one email, sign-ins for it are refused, without checking the
 * password, for a delay that doubles per failure up to five minutes (sign-in-backoff.ts). The
 * right password after the delay signs in and resets the count.
 */
async function signInWithBackoff(req: Request, handler: (req: Request) => Promise<Response>, failures: SignInFailures): Promise<Response> {
  const email = await emailOf(req);
  if (email === null) return handler(req);
  const now = Date.now();
  const until = await failures.blockedUntil(email, now);
  if (until !== null) {
    const seconds = Math.max(1, Math.ceil((until - now) / 1000));
    return Response.json(
      { code: "TOO_MANY_FAILED_SIGN_INS", message: `too many wrong passwords for this account: try again in ${seconds} s` },
      { status: 429, headers: { "retry-after": String(seconds), "cache-control": "no-store" } },
    );
  }
  const res = await handler(req);
  if (res.status === 401) await failures.recordFailure(email, Date.now());
  else if (res.ok) await failures.clear(email);
  return res;
}

async function emailOf(req: Request): Promise<string | null> {
  try {
    const body: unknown = await req.clone().json();
    const email = typeof body === "object" && body !== null ? (body as { email?: unknown }).email : undefined;
    return typeof email === "string" && email.length > 0 ? email : null;
  } catch {
    return null;
  }
}
