// POST /api/v1/calls/{callId}/complete — agents (project API key): report the outcome of an executed call.
import { CallStatusSchema, CompleteRequestSchema } from "@/lib/contract/v1";
import { CallIdParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { toCallStatus, toCompleteOutcome } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  params: CallIdParams,
  body: CompleteRequestSchema,
  response: CallStatusSchema,
  handler: async ({ body, params, principal }) =>
    toCallStatus(
      await services().gate.service.complete(
        principal.projectId,
        params.callId,
        body.leaseToken ?? null,
        toCompleteOutcome(body),
      ),
    ),
});
