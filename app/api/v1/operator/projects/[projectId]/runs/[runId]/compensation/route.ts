// GET /api/v1/operator/projects/{projectId}/runs/{runId}/compensation — viewers: the run's saga state and each step's compensation.
import { RunCompensationSchema } from "@/lib/contract/sagas";
import { ProjectRunParams } from "@/lib/http/call-list-params";
import { toRunCompensation } from "@/lib/http/saga-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectRunParams,
  response: RunCompensationSchema,
  handler: async ({ params }) => toRunCompensation(await services().sagas.get(params.projectId, params.runId)),
});
