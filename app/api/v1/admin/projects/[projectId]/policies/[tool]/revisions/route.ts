// GET /api/v1/admin/projects/{projectId}/policies/{tool}/revisions — admins (operator session with the admin role, or the admin token): the layer's revision history, newest first.
import { PolicyHistoryResponseSchema } from "@/lib/contract/admin-policies";
import { ProjectToolParams } from "@/lib/http/params";
import { toWireRevision } from "@/lib/http/policy-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { services } from "@/lib/server/composition-root";

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectToolParams,
  response: PolicyHistoryResponseSchema,
  handler: async ({ params }) => ({
    tool: params.tool,
    revisions: (await services().gate.policies.history(params.projectId, params.tool)).map(toWireRevision),
  }),
});
