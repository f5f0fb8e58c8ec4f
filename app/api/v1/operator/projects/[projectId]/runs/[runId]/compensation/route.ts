// GET /api/v1/operator/projects/{projectId}/runs/{runId}/compensation — viewers: the run's saga state and each step's compensation.
import { RunCompensationSchema } from "@/lib/contract/sagas";
import { ProjectRunParams } from "@/lib/http/call-list-params";
import { toRunCompensation } from "@/lib/http/saga-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { getSagas } from "@/lib/server/sagas/saga-context";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectRunParams,
  response: RunCompensationSchema,
  handler: async ({ params }) => toRunCompensation(await getSagas().get(params.projectId, params.runId)),
});
