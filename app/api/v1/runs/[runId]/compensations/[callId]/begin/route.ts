// POST /api/v1/runs/{runId}/compensations/{callId}/begin — agents (project API key): begin one step's undo as a gated call under `<key>:compensate`.
import { CompensationBeginRequestSchema } from "@/lib/contract/sagas";
import { BeginResponseSchema } from "@/lib/contract/v1";
import { RunCallParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { toWireDecision } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  params: RunCallParams,
  body: CompensationBeginRequestSchema,
  response: BeginResponseSchema,
  handler: async ({ params, body, principal }) =>
    toWireDecision(await services().sagas.beginCompensation(principal.projectId, params.runId, params.callId, body.waitMs)),
});
