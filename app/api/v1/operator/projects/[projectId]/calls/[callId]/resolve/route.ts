// POST /api/v1/operator/projects/{projectId}/calls/{callId}/resolve — operators: record the outcome found downstream for a call left in verify or lease_lost.
import { ResolveSchema } from "@/lib/contract/operator";
import { CallStatusSchema } from "@/lib/contract/v1";
import { ProjectCallParams } from "@/lib/http/operator-params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { toCallStatus } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectCallParams,
  body: ResolveSchema,
  response: CallStatusSchema,
  handler: async ({ params, body, operator }) =>
    toCallStatus(await services().operators.records.resolve(params.projectId, params.callId, body, operator.actor)),
});
