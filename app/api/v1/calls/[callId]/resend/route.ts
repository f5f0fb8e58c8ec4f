// POST /api/v1/calls/{callId}/resend — agents (project API key): ask a human to let a completed call run once more.
import { CreateResendRequestSchema, ResendRequestSchema } from "@/lib/contract/resends";
import { clientInfo } from "@/lib/http/client-info";
import { toWireResend } from "@/lib/http/operator-wire";
import { CallIdParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { agentActor } from "@/lib/server/operator-audit";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  params: CallIdParams,
  body: CreateResendRequestSchema,
  response: ResendRequestSchema,
  handler: async ({ req, params, body, principal }) => {
    const actor = agentActor(principal, clientInfo(req));
    return toWireResend(await services().operators.resends.requestForCall(principal.projectId, params.callId, body.reason, actor), Date.now());
  },
});
