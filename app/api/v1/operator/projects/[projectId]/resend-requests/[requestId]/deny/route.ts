// POST /api/v1/operator/projects/{projectId}/resend-requests/{requestId}/deny — operators: deny, with a note.
import { DenySchema, OperatorResendRequestSchema } from "@/lib/contract/operator";
import { ProjectRequestParams } from "@/lib/http/operator-params";
import { toOperatorResend } from "@/lib/http/operator-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectRequestParams,
  body: DenySchema,
  response: OperatorResendRequestSchema,
  handler: async ({ params, body, operator }) => {
    const decided = await services().operators.resends.decide(params.projectId, params.requestId, "denied", { note: body.note }, operator.actor);
    return toOperatorResend(decided, Date.now());
  },
});
