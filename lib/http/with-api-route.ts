import type { z } from "zod";
import { randomUUID } from "node:crypto";
import { AppError } from "../server/app-error";
import { getGate } from "../server/gate";
import type { Principal } from "../server/api-keys";
import { errorResponse } from "./errors";
import { readJsonBody } from "./read-json-body";

interface RouteContext<B, P> {
  req: Request;
  body: B;
  params: P;
  principal: Principal;
  requestId: string;
}

interface RouteSpec<B, P> {
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  /** The response schema: declared for the contract; parsed in tests, not per request. */
  response: z.ZodType;
  handler: (ctx: RouteContext<B, P>) => Promise<unknown>;
}

/**
 * The one wrapper for agent routes: request id, API-key auth, zod parsing of params and body, and
 * every failure mapped through one error table. Handlers only call a service.
 */
export function withApiRoute<B = undefined, P = Record<string, never>>(spec: RouteSpec<B, P>) {
  return async (req: Request, context: { params: Promise<Record<string, string | string[]>> }): Promise<Response> => {
    const requestId = callerRequestId(req) ?? randomUUID();
    try {
      const principal = await authenticate(req);
      const params = spec.params ? spec.params.parse(await context.params) : (undefined as P);
      const body = spec.body ? spec.body.parse(await readJsonBody(req)) : (undefined as B);
      const data = await spec.handler({ req, body, params, principal, requestId });
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
  const header = req.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new AppError("unauthorized", "send the project API key as `Authorization: Bearer ig_…`");
  const principal = await getGate().auth.authenticate(match[1]!);
  if (!principal) throw new AppError("unauthorized", "the API key is unknown or revoked");
  return principal;
}
