// GET /api/v1/runs/{runId}/compensation — agents (project API key): the run's saga state and compensation plan.
import { RunCompensationSchema } from "@/lib/contract/sagas";
import { RunIdParams } from "@/lib/http/params";
import { toRunCompensation } from "@/lib/http/saga-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { services } from "@/lib/server/composition-root";

export const GET = withApiRoute({
  params: RunIdParams,
  response: RunCompensationSchema,
  handler: async ({ params, principal }) => toRunCompensation(await services().sagas.get(principal.projectId, params.runId)),
});
