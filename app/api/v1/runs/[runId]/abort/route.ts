// POST /api/v1/runs/{runId}/abort — agents (project API key): abort the run; its compensation plan starts (idempotent).
import { AbortRunRequestSchema, RunCompensationSchema } from "@/lib/contract/sagas";
import { clientInfo } from "@/lib/http/client-info";
import { RunIdParams } from "@/lib/http/params";
import { toRunCompensation } from "@/lib/http/saga-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { agentActor } from "@/lib/server/operators/operator-audit";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  params: RunIdParams,
  body: AbortRunRequestSchema,
  response: RunCompensationSchema,
  handler: async ({ req, params, body, principal }) =>
    toRunCompensation(
      await services().sagas.abort(principal.projectId, params.runId, body.reason, { by: "agent", actor: agentActor(principal, clientInfo(req)) }),
    ),
});
