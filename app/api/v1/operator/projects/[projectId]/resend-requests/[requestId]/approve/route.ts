// POST /api/v1/operator/projects/{projectId}/resend-requests/{requestId}/approve — operators (never the one who asked): approve, with a note; the agent gets a single-use token.
import { ApproveSchema, OperatorResendRequestSchema } from "@/lib/contract/operator";
import { ProjectRequestParams } from "@/lib/http/operator-params";
import { toOperatorResend } from "@/lib/http/operator-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectRequestParams,
  body: ApproveSchema,
  response: OperatorResendRequestSchema,
  handler: async ({ params, body, operator }) => {
    const decided = await services().operators.resends.decide(params.projectId, params.requestId, "approved", body, operator.actor);
    return toOperatorResend(decided, Date.now());
  },
});
