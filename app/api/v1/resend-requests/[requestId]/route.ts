// GET /api/v1/resend-requests/{requestId} — agents (project API key): the request's status; once approved, its bypass token, shown once to the key that asked.
import { ResendRequestSchema } from "@/lib/contract/resends";
import { clientInfo } from "@/lib/http/client-info";
import { RequestIdParams } from "@/lib/http/operator-params";
import { toWireResend } from "@/lib/http/operator-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { agentActor } from "@/lib/server/operator-audit";
import { services } from "@/lib/server/composition-root";

export const GET = withApiRoute({
  params: RequestIdParams,
  response: ResendRequestSchema,
  handler: async ({ req, params, principal }) => {
    const actor = agentActor(principal, clientInfo(req));
    const { row, token } = await services().operators.resends.readByAgent(principal.projectId, params.requestId, principal.apiKeyId, actor);
    return toWireResend(row, Date.now(), token);
  },
});
