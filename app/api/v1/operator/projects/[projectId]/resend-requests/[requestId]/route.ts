// GET /api/v1/operator/projects/{projectId}/resend-requests/{requestId} — viewers: one resend request, with what it would run.
import { OperatorResendRequestSchema } from "@/lib/contract/operator";
import { ProjectRequestParams } from "@/lib/http/operator-params";
import { toOperatorResend } from "@/lib/http/operator-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { getOperators } from "@/lib/server/operator-context";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectRequestParams,
  response: OperatorResendRequestSchema,
  handler: async ({ params }) => toOperatorResend(await getOperators().resends.getOrThrow(params.projectId, params.requestId), Date.now()),
});
