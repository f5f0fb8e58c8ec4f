// POST /api/v1/calls/{callId}/heartbeat — agents (project API key): keep a long-running lease.
import { HeartbeatRequestSchema, HeartbeatResponseSchema } from "@/lib/contract/v1";
import { CallIdParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { toHeartbeatResponse } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  params: CallIdParams,
  body: HeartbeatRequestSchema,
  response: HeartbeatResponseSchema,
  handler: async ({ body, params, principal }) =>
    toHeartbeatResponse(await services().gate.service.heartbeat(principal.projectId, params.callId, body.leaseToken, body.extendSeconds)),
});
