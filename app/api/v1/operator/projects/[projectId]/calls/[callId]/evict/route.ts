// POST /api/v1/operator/projects/{projectId}/calls/{callId}/evict — operators: forget a call's outcome, with a reason; the next begin executes afresh.
import { EvictSchema } from "@/lib/contract/operator";
import { CallStatusSchema } from "@/lib/contract/v1";
import { ProjectCallParams } from "@/lib/http/operator-params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { toCallStatus } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectCallParams,
  body: EvictSchema,
  response: CallStatusSchema,
  handler: async ({ params, body, operator }) =>
    toCallStatus(await services().operators.records.evict(params.projectId, params.callId, body.reason, operator.actor)),
});
