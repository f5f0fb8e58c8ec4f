// GET /api/v1/calls/{callId} — agents (project API key): a call's status, for async tools and pollers.
import { CallStatusSchema } from "@/lib/contract/v1";
import { CallIdParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { toCallStatus } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const GET = withApiRoute({
  params: CallIdParams,
  response: CallStatusSchema,
  handler: async ({ params, principal }) =>
    toCallStatus(await services().gate.service.getRecordOrThrow(principal.projectId, params.callId)),
});
