// POST /api/v1/operator/projects/{projectId}/runs/{runId}/compensations/{callId}/resolve — operators: mark a failed compensation resolved by hand, with a note (audited).
import { ResolveCompensationSchema, RunCompensationSchema } from "@/lib/contract/sagas";
import { ProjectRunCallParams } from "@/lib/http/params";
import { toRunCompensation } from "@/lib/http/saga-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectRunCallParams,
  body: ResolveCompensationSchema,
  response: RunCompensationSchema,
  handler: async ({ params, body, operator }) =>
    toRunCompensation(await services().sagas.resolve(params.projectId, params.runId, params.callId, body.note, operator.actor)),
});
