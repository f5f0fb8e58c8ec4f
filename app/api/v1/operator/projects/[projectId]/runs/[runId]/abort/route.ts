// POST /api/v1/operator/projects/{projectId}/runs/{runId}/abort — operators: abort a run with a reason (audited); its compensation plan starts.
import { AbortRunRequestSchema, RunCompensationSchema } from "@/lib/contract/sagas";
import { ProjectRunParams } from "@/lib/http/call-list-params";
import { toRunCompensation } from "@/lib/http/saga-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectRunParams,
  body: AbortRunRequestSchema,
  response: RunCompensationSchema,
  handler: async ({ params, body, operator }) =>
    toRunCompensation(await services().sagas.abort(params.projectId, params.runId, body.reason, { by: "operator", actor: operator.actor })),
});
