import { z } from "zod";
import { type Problem, problemType, problemTypeBase } from "../sdk/http/problem";
import { publicOrigin } from "./public-origin";
import type { Principal } from "../server/operators/api-keys";
import { AppError } from "../server/app-error";
import { services } from "../server/composition-root";
import { withIncomingTrace } from "../telemetry/spans";
import { bearerToken } from "./bearer-token";
import { ERROR_STATUS } from "./errors";

const GatewayParams = z.object({ upstream: z.string().min(1).max(63), path: z.array(z.string().max(2_000)).min(1).max(100) });

interface GatewayRouteContext {
  req: Request;
  principal: Principal;
  params: z.infer<typeof GatewayParams>;
}

/**
 * The wrapper for the HTTP gateway (`/gw/{upstream}/…`): the project API key, the path, the
 * caller's trace; every error is `application/problem+json` (the HTTP tools' error format),
 * never the agent API's JSON error body.
 */
export function withGatewayRoute(handler: (ctx: GatewayRouteContext) => Promise<Response>) {
  return async (req: Request, context: { params: Promise<Record<string, string | string[]>> }): Promise<Response> => {
    try {
      const token = bearerToken(req);
      const principal = token ? await services().gate.auth.authenticate(token) : null;
      if (!principal) throw new AppError("unauthorized", "send the project API key as `Authorization: Bearer ig_…`");
      const params = GatewayParams.parse(await context.params);
      return await withIncomingTrace(req.headers, () => handler({ req, principal, params }));
    } catch (error) {
      return problemResponse(error, problemTypeBase(publicOrigin(req)));
    }
  };
}

function problemResponse(error: unknown, typeBase: string): Response {
  const appError = error instanceof AppError ? error : error instanceof z.ZodError ? new AppError("invalid_input", "the gateway path is malformed") : null;
  if (!appError) console.error("[idemgate] gateway error", error);
  const code = appError?.code ?? "internal";
  const { status } = ERROR_STATUS[code];
  const body: Problem = { type: problemType(code.replaceAll("_", "-"), typeBase), title: code.replaceAll("_", " "), status, detail: appError?.message ?? "internal error" };
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (status === 503 || status === 500) headers["retry-after"] = "1";
  return new Response(JSON.stringify(body), { status, headers });
}
