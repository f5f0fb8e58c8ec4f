// GET /api/v1/operator/projects/{projectId}/resend-requests/{requestId} — viewers: one resend request, with what it would run.
import { OperatorResendRequestSchema } from "@/lib/contract/operator";
import { ProjectRequestParams } from "@/lib/http/operator-params";
import { toOperatorResend } from "@/lib/http/operator-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { apiKeyNames } from "@/lib/server/operators/api-key-names";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectRequestParams,
  response: OperatorResendRequestSchema,
  handler: async ({ params }) => {
    const operators = services().operators;
    const [row, keyNames] = await Promise.all([operators.resends.getOrThrow(params.projectId, params.requestId), apiKeyNames(operators.store, params.projectId)]);
    return toOperatorResend(row, Date.now(), keyNames);
  },
});
