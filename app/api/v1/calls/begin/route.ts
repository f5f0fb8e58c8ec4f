// POST /api/v1/calls/begin — agents (project API key): may this tool call run?
import { BeginRequestSchema, BeginResponseSchema } from "@/lib/contract/v1";
import { clientInfo } from "@/lib/http/client-info";
import { withApiRoute } from "@/lib/http/with-api-route";
import { toBeginInput, toWireDecision } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";
import { agentActor } from "@/lib/server/operator-audit";
import { bypassAsk } from "@/lib/server/resend-bypass";

export const POST = withApiRoute({
  body: BeginRequestSchema,
  response: BeginResponseSchema,
  handler: async ({ req, body, principal }) =>
    toWireDecision(
      await services().gate.service.begin(principal.projectId, {
        ...toBeginInput(body),
        bypass: bypassAsk(body, agentActor(principal, clientInfo(req))),
      }),
    ),
});
