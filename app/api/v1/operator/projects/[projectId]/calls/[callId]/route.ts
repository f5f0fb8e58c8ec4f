// GET /api/v1/operator/projects/{projectId}/calls/{callId} — viewers: a call's record.
import { CallStatusSchema } from "@/lib/contract/v1";
import { ProjectCallParams } from "@/lib/http/operator-params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { toCallStatus } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectCallParams,
  response: CallStatusSchema,
  handler: async ({ params }) => toCallStatus(await services().operators.records.get(params.projectId, params.callId)),
});
