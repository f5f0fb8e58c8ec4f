// POST /api/v1/operator/projects/{projectId}/runs/{runId}/compensations/{callId}/retry — operators: let a failed compensation run again (audited).
import { RetryCompensationSchema, RunCompensationSchema } from "@/lib/contract/sagas";
import { ProjectRunCallParams } from "@/lib/http/params";
import { toRunCompensation } from "@/lib/http/saga-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectRunCallParams,
  body: RetryCompensationSchema,
  response: RunCompensationSchema,
  handler: async ({ params, body, operator }) =>
    toRunCompensation(await services().sagas.retry(params.projectId, params.runId, params.callId, body.reason, operator.actor)),
});
