// GET /api/v1/admin/projects/{projectId}/policies — admins (operator session with the admin role, or the admin token): every tool seen or configured, with its last 24 h of traffic.
import { PolicyListResponseSchema } from "@/lib/contract/admin-policies";
import { ProjectParams } from "@/lib/http/params";
import { toWireToolList } from "@/lib/http/policy-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { services } from "@/lib/server/composition-root";

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectParams,
  response: PolicyListResponseSchema,
  handler: async ({ params }) => toWireToolList(params.projectId, await services().gate.policies.list(params.projectId)),
});
