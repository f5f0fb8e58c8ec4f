import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { requireSameOrigin } from "../auth/origin-check";
import { projectRole, sessionUser } from "../auth/operator-session";
import { roleAllows } from "../auth/roles";
import { env } from "../env";
import { AppError } from "../server/app-error";
import { services } from "../server/composition-root";
import { type Actor, userActor } from "../server/operators/operator-audit";
import type { MemberRole, UserRow } from "../store/ports/operator-store";
import { clientInfo } from "./client-info";
import { errorResponse } from "./errors";
import { readJsonBody } from "./read-json-body";

/** signedIn: any operator (no project in the path); a role: at least that role in the path's project. */
export type OperatorNeed = "signedIn" | MemberRole;

export interface Operator<N extends OperatorNeed> {
  user: UserRow;
  actor: Actor;
  /** The operator's role in the path's project. */
  role: N extends "signedIn" ? null : MemberRole;
}

interface OperatorRouteContext<B, P, Q, N extends OperatorNeed> {
  req: Request;
  body: B;
  params: P;
  query: Q;
  operator: Operator<N>;
  requestId: string;
}

export interface OperatorRouteSpec<B, P, Q, N extends OperatorNeed> {
  role: N;
  params?: z.ZodType<P>;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  /** The response schema: declared for the contract; parsed in tests, not per request. */
  response: z.ZodType;
  handler: (ctx: OperatorRouteContext<B, P, Q, N>) => Promise<unknown>;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The wrapper for the operator API (app/api/v1/operator/**): the session cookie (401 without
 * one), the Origin check on every state change (403), the operator's role in the path's project
 * (404 when they have none there, 403 when it is too low), then zod parsing and the shared error
 * table. An agent's API key is not a session: it never gets past the first step.
 */
export function withOperatorRoute<B = undefined, P = Record<string, never>, Q = undefined, N extends OperatorNeed = OperatorNeed>(
  spec: OperatorRouteSpec<B, P, Q, N>,
) {
  return async (req: Request, context: { params: Promise<Record<string, string | string[]>> }): Promise<Response> => {
    const requestId = randomUUID();
    try {
      const operators = services().operators;
      const user = await sessionUser(operators.auth, operators.store, req.headers);
      if (!user) throw new AppError("unauthorized", "sign in as an operator (POST /api/auth/sign-in/email) and send the session cookie");
      if (!SAFE_METHODS.has(req.method)) requireSameOrigin(req, env().BETTER_AUTH_URL);

      const params = spec.params ? spec.params.parse(await context.params) : (undefined as P);
      let role: MemberRole | null = null;
      if (spec.role !== "signedIn") {
        const projectId = (params as { projectId?: string } | undefined)?.projectId;
        if (!projectId) throw new Error("an operator route that needs a role must have a projectId param");
        role = await projectRole(operators.store, services().gate.store, user, projectId);
        if (!role) throw new AppError("not_found", `no project ${projectId}`);
        if (!roleAllows(role, spec.role)) throw new AppError("forbidden", `this needs the ${spec.role} role in ${projectId}; you are ${role}`);
      }
      const query = spec.query ? spec.query.parse(Object.fromEntries(new URL(req.url).searchParams)) : (undefined as Q);
      const body = spec.body ? spec.body.parse(await readJsonBody(req)) : (undefined as B);
      const operator = { user, actor: userActor(user, clientInfo(req)), role } as Operator<N>;
      const data = await spec.handler({ req, body, params, query, operator, requestId });
      // A download (CSV) answers with its own Response; everything else is JSON.
      if (data instanceof Response) {
        data.headers.set("x-request-id", requestId);
        return data;
      }
      return Response.json(data, { headers: { "x-request-id": requestId, "cache-control": "no-store" } });
    } catch (error) {
      return errorResponse(error, requestId);
    }
  };
}
