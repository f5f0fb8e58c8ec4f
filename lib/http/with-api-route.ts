import type { z } from "zod";
import { randomUUID } from "node:crypto";
import { env } from "../env";
import { AppError } from "../server/app-error";
import { services } from "../server/composition-root";
import type { Principal } from "../server/api-keys";
import { bearerToken, tokenMatches } from "./bearer-token";
import { errorResponse } from "./errors";
import { readJsonBody } from "./read-json-body";
import { withIncomingTrace } from "../telemetry/spans";

/** apiKey: an agent's project key (the default); admin: the operator token from the environment. */
type AuthMode = "apiKey" | "admin";

/** The operator holding IDEMGATE_ADMIN_TOKEN: not tied to a project, so admin routes name one in the path. */
export interface AdminPrincipal {
  kind: "admin";
  /** Set when an operator session with the admin role authorised the call (lib/auth/operator-admin.ts), not the token. */
  operator?: { id: string; email: string };
}

type PrincipalFor<A extends AuthMode> = A extends "admin" ? AdminPrincipal : Principal;

interface RouteContext<B, P, A extends AuthMode, Q = undefined> {
  req: Request;
  body: B;
  params: P;
  query: Q;
  principal: PrincipalFor<A>;
  requestId: string;
}

interface RouteSpec<B, P, A extends AuthMode, Q = undefined> {
  auth?: A;
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  /** The query string, parsed from its parameters as one object. */
  query?: z.ZodType<Q>;
  /** The response schema: declared for the contract; parsed in tests, not per request. */
  response: z.ZodType;
  handler: (ctx: RouteContext<B, P, A, Q>) => Promise<unknown>;
}

/**
 * The one wrapper for API routes: request id, auth (an agent's API key, or the operator token with
 * `auth: "admin"`), zod parsing of params, query and body, and every failure mapped through one error
 * table. Handlers only call a service.
 */
export function withApiRoute<B = undefined, P = Record<string, never>, A extends AuthMode = "apiKey", Q = undefined>(spec: RouteSpec<B, P, A, Q>) {
  return async (req: Request, context: { params: Promise<Record<string, string | string[]>> }): Promise<Response> => {
    const requestId = callerRequestId(req) ?? randomUUID();
    try {
      const principal = (spec.auth === "admin" ? await authenticateAdmin(req, context) : await authenticate(req)) as PrincipalFor<A>;
      const params = spec.params ? spec.params.parse(await context.params) : (undefined as P);
      const query = spec.query ? spec.query.parse(Object.fromEntries(new URL(req.url).searchParams)) : (undefined as Q);
      const body = spec.body ? spec.body.parse(await readJsonBody(req)) : (undefined as B);
      // The agent's execute_tool span (W3C traceparent) becomes the parent of the gate's spans.
      const data = await withIncomingTrace(req.headers, () => spec.handler({ req, body, params, query, principal, requestId }));
      return Response.json(data, { headers: { "x-request-id": requestId, "cache-control": "no-store" } });
    } catch (error) {
      return errorResponse(error, requestId);
    }
  };
}

/** A caller's request id is echoed only when it is a plain, short token. */
function callerRequestId(req: Request): string | null {
  const id = req.headers.get("x-request-id");
  return id && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : null;
}

async function authenticate(req: Request): Promise<Principal> {
  const token = bearerToken(req);
  if (!token) throw new AppError("unauthorized", "send the project API key as `Authorization: Bearer ig_…`");
  const principal = await services().gate.auth.authenticate(token);
  if (!principal) throw new AppError("unauthorized", "the API key is unknown or revoked");
  return principal;
}

async function authenticateAdmin(req: Request, context: { params: Promise<Record<string, string | string[]>> }): Promise<AdminPrincipal> {
  const expected = env().IDEMGATE_ADMIN_TOKEN;
  const given = bearerToken(req);
  if (!given) {
    // No token: an operator session with the admin role in the path's project. Loaded on demand
    // so that agent routes do not carry better-auth.
    const { sessionAdmin } = await import("../auth/operator-admin");
    const operator = await sessionAdmin(req, await context.params);
    if (operator) return { kind: "admin", operator };
  }
  if (!given) throw new AppError("unauthorized", "sign in as an admin of the project, or send the operator token as `Authorization: Bearer $IDEMGATE_ADMIN_TOKEN`");
  if (!expected) throw new AppError("unauthorized", "operator tokens are disabled (IDEMGATE_ADMIN_TOKEN unset): sign in as an admin of the project");
  if (!tokenMatches(given, expected)) throw new AppError("unauthorized", "the operator token is wrong");
  return { kind: "admin" };
}
