// GET /api/v1/operator/projects/{projectId}/calls/{callId} — viewers: a call's record.
import { CallStatusSchema } from "@/lib/contract/v1";
import { ProjectCallParams } from "@/lib/http/operator-params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { toCallStatus } from "@/lib/http/wire";
import { getOperators } from "@/lib/server/operator-context";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectCallParams,
  response: CallStatusSchema,
  handler: async ({ params }) => toCallStatus(await getOperators().records.get(params.projectId, params.callId)),
});
