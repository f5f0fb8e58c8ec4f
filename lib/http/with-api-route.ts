import type { z } from "zod";
import { randomUUID } from "node:crypto";
import { env } from "../env";
import { AppError } from "../server/app-error";
import { services } from "../server/composition-root";
import type { Principal } from "../server/operators/api-keys";
import { bearerToken, tokenMatches } from "./bearer-token";
import { type ApiResult, jsonResult, toResponse } from "./api-result";
import { errorResult } from "./errors";
import type { HeaderReader } from "./header-reader";
import type { BodySource } from "./bounded-body";
import { readJsonBodyFrom } from "./read-json-body";
import { withIncomingTrace } from "../telemetry/spans";
import { gateTiming } from "./server-timing";
import { withStoreClock } from "../telemetry/store-timing";

/** apiKey: an agent's project key (the default); admin: the operator token from the environment. */
type AuthMode = "apiKey" | "admin";

/** The operator holding IDEMGATE_ADMIN_TOKEN: not tied to a project, so admin routes name one in the path. */
export interface AdminPrincipal {
  kind: "admin";
  /** Set when an operator session with the admin role authorised the call (lib/auth/operator-admin.ts), not the token. */
  operator?: { id: string; email: string };
}

type PrincipalFor<A extends AuthMode> = A extends "admin" ? AdminPrincipal : Principal;

/** What a handler may read of the request: its headers (for the audit log's client info). */
export interface ApiRequest {
  headers: HeaderReader;
}

interface RouteContext<B, P, A extends AuthMode, Q = undefined> {
  req: ApiRequest;
  body: B;
  params: P;
  query: Q;
  principal: PrincipalFor<A>;
  requestId: string;
}

export interface RouteSpec<B, P, A extends AuthMode, Q = undefined> {
  auth?: A;
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  /** The query string, parsed from its parameters as one object. */
  query?: z.ZodType<Q>;
  /** The response schema: declared for the contract; parsed in tests, not per request. */
  response: z.ZodType;
  handler: (ctx: RouteContext<B, P, A, Q>) => Promise<unknown>;
}

/** An agent route (project API key): served by Next.js and by the lean agent path alike. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AgentRouteSpec = RouteSpec<any, any, "apiKey", undefined>;

/** A request as either serving path presents it to runApiRoute. */
export interface ApiCall {
  headers: HeaderReader;
  params: () => Promise<Record<string, string | string[]>>;
  searchParams: () => URLSearchParams;
  body: BodySource | null;
  /** Admin routes only (Next.js): an operator session is read from the request's cookies. */
  request?: Request;
}

/**
 * The one wrapper for API routes: request id, auth (an agent's API key, or the operator token with
 * `auth: "admin"`), zod parsing of params, query and body, and every failure mapped through one error
 * table. Handlers only call a service.
 */
export function withApiRoute<B = undefined, P = Record<string, never>, A extends AuthMode = "apiKey", Q = undefined>(spec: RouteSpec<B, P, A, Q>) {
  return async (req: Request, context: { params: Promise<Record<string, string | string[]>> }): Promise<Response> =>
    toResponse(
      await runApiRoute(spec, {
        headers: req.headers,
        params: () => context.params,
        searchParams: () => new URL(req.url).searchParams,
        body: req.body,
        request: req,
      }),
    );
}

/**
 * The route's work on either serving path (a Next.js route handler, or lib/http/agent-api.ts): same
 * auth, parsing, answers and errors. Every answer, errors included, names the gate's own time, and the
 * store's share of it, in `Server-Timing` (server-timing.ts), so an agent's traces show what the gate added to each call.
 */
export async function runApiRoute<B, P, A extends AuthMode, Q>(spec: RouteSpec<B, P, A, Q>, call: ApiCall): Promise<ApiResult> {
  const started = performance.now();
  return withStoreClock(async (storeMs) => {
    const result = await answer(spec, call);
    result.headers["server-timing"] = gateTiming(started, storeMs());
    return result;
  });
}

async function answer<B, P, A extends AuthMode, Q>(spec: RouteSpec<B, P, A, Q>, call: ApiCall): Promise<ApiResult> {
  const requestId = callerRequestId(call.headers) ?? randomUUID();
  try {
    const principal = (spec.auth === "admin" ? await authenticateAdmin(call) : await authenticate(call.headers)) as PrincipalFor<A>;
    const params = spec.params ? spec.params.parse(await call.params()) : (undefined as P);
    const query = spec.query ? spec.query.parse(Object.fromEntries(call.searchParams())) : (undefined as Q);
    const body = spec.body ? spec.body.parse(await readJsonBodyFrom(call.headers, call.body)) : (undefined as B);
    const req: ApiRequest = { headers: call.headers };
    // The agent's execute_tool span (W3C traceparent) becomes the parent of the gate's spans.
    const data = await withIncomingTrace(call.headers, () => spec.handler({ req, body, params, query, principal, requestId }));
    return jsonResult(200, data, { "x-request-id": requestId, "cache-control": "no-store" });
  } catch (error) {
    return errorResult(error, requestId);
  }
}

/** A caller's request id is echoed only when it is a plain, short token. */
function callerRequestId(headers: HeaderReader): string | null {
  const id = headers.get("x-request-id");
  return id && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : null;
}

async function authenticate(headers: HeaderReader): Promise<Principal> {
  const token = bearerToken({ headers });
  if (!token) throw new AppError("unauthorized", "send the project API key as `Authorization: Bearer ig_…`");
  const principal = await services().gate.auth.authenticate(token);
  if (!principal) throw new AppError("unauthorized", "the API key is unknown or revoked");
  return principal;
}

async function authenticateAdmin(call: ApiCall): Promise<AdminPrincipal> {
  const expected = env().IDEMGATE_ADMIN_TOKEN;
  const given = bearerToken(call);
  if (!given && call.request) {
    // No token: an operator session with the admin role in the path's project. Loaded on demand
    // so that agent routes do not carry better-auth.
    const { sessionAdmin } = await import("../auth/operator-admin");
    const operator = await sessionAdmin(call.request, await call.params());
    if (operator) return { kind: "admin", operator };
  }
  if (!given) throw new AppError("unauthorized", "sign in as an admin of the project, or send the operator token as `Authorization: Bearer $IDEMGATE_ADMIN_TOKEN`");
  if (!expected) throw new AppError("unauthorized", "operator tokens are disabled (IDEMGATE_ADMIN_TOKEN unset): sign in as an admin of the project");
  if (!tokenMatches(given, expected)) throw new AppError("unauthorized", "the operator token is wrong");
  return { kind: "admin" };
}
