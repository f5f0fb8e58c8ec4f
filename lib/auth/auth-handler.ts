import { randomUUID } from "node:crypto";
import { readBoundedBody, withBody } from "../http/bounded-body";
import { arrivedOverHttps, clientIp } from "../http/client-address";
import { errorResponse } from "../http/errors";
import { services } from "../server/composition-root";
import { AUTH_BASE_PATH } from "./auth";
import { DEMO_LOCAL_ONLY_NOTICE, demoPasswordRefused } from "./demo-password";
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
  if (req.method === "POST") {
    // better-auth reads the body itself, unbounded: it is handed the bytes read here, within the limit.
    try {
      req = withBody(req, await readBoundedBody(req.headers, req.body));
    } catch (error) {
      return errorResponse(error, randomUUID());
    }
  }
  const operators = services().operators;
  const https = arrivedOverHttps(req.headers);
  if (path === "/change-password" && req.method === "POST") req = await revokingOtherSessions(req);
  let res: Response;
  try {
    res =
      path === "/sign-in/email" && req.method === "POST"
        ? await signInWithBackoff(req, operators.auth.handler, new SignInFailures(services().db))
        : await operators.auth.handler(req);
  } catch (error) {
    // Past the body parsing (guarded), what can throw here is a database call of the backoff's.
    console.error(`[idemgate] auth ${path}: the account store failed`, error);
    return storeUnavailable();
  }
  if (res.status >= 500) {
    // better-auth answers 500 when its database threw (a lock or statement timeout, a pool with no
    // free connection: say a session it could not insert), and logs the cause. That is the store's
    // failure: the retryable 503 the rest of the API gives, and a sign-in that is not counted as a
    // wrong password.
    console.error(`[idemgate] auth ${path}: better-auth answered ${res.status}; answering 503 store_unavailable`);
    return storeUnavailable();
  }
  if (res.status === 429) res = withRetryAfter(res);
  return https ? withSecureCookies(res) : res;
}

/**
 * better-auth's per-address limit answers 429 with a non-standard `X-Retry-After`: clients and
 * proxies read `Retry-After` (RFC 9110), so the same seconds go there too.
 */
function withRetryAfter(res: Response): Response {
  const seconds = res.headers.get("x-retry-after");
  if (res.headers.has("retry-after") || seconds === null) return res;
  const headers = new Headers(res.headers);
  headers.set("retry-after", seconds);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

function storeUnavailable(): Response {
  return Response.json(
    { error: { code: "store_unavailable", message: "the account store did not answer; retry the same request", retryable: true } },
    { status: 503, headers: { "retry-after": "1", "cache-control": "no-store" } },
  );
}

/** A changed password ends every other session of the user, whatever the client asked for. */
async function revokingOtherSessions(req: Request): Promise<Request> {
  let body: unknown;
  try {
    body = await req.clone().json();
  } catch {
    return req; // better-auth answers the malformed body
  }
  if (typeof body !== "object" || body === null) return req;
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  return new Request(req.url, { method: "POST", headers, body: JSON.stringify({ ...body, revokeOtherSessions: true }) });
}

/**
 * Cookies set over https (directly, or through a trusted proxy: client-address.ts) are Secure,
 * whatever BETTER_AUTH_URL says, so a later plain-http request never carries the session.
 */
function withSecureCookies(res: Response): Response {
  const cookies = res.headers.getSetCookie();
  if (cookies.length === 0 || cookies.every(isSecure)) return res;
  const headers = new Headers(res.headers);
  headers.delete("set-cookie");
  for (const cookie of cookies) headers.append("set-cookie", isSecure(cookie) ? cookie : `${cookie}; Secure`);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

const isSecure = (cookie: string) => /;\s*secure\s*(;|$)/i.test(cookie);

/**
 * Per-account backoff on top of better-auth's per-address limit, which a botnet spreads thin:
 * after a few wrong passwords for one email, sign-ins for it are refused, without checking the
 * password, for a delay that doubles per failure up to five minutes (sign-in-backoff.ts). The
 * right password after the delay signs in and resets the count.
 */
async function signInWithBackoff(req: Request, handler: (req: Request) => Promise<Response>, failures: SignInFailures): Promise<Response> {
  const { email, password } = await credentialsOf(req);
  if (email === null) return handler(req);
  if (password !== null && demoPasswordRefused(email, password, clientIp(req.headers), req.headers.get("host"))) {
    return Response.json({ code: "DEMO_PASSWORD_LOCAL_ONLY", message: DEMO_LOCAL_ONLY_NOTICE }, { status: 403, headers: { "cache-control": "no-store" } });
  }
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

async function credentialsOf(req: Request): Promise<{ email: string | null; password: string | null }> {
  try {
    const body: unknown = await req.clone().json();
    const { email, password } = typeof body === "object" && body !== null ? (body as { email?: unknown; password?: unknown }) : {};
    return {
      email: typeof email === "string" && email.length > 0 ? email : null,
      password: typeof password === "string" ? password : null,
    };
  } catch {
    return { email: null, password: null };
  }
}
