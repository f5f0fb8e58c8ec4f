// POST /api/v1/admin/projects/{projectId}/policies/{tool}/simulate — admins (operator session with the admin role, or the admin token): what a draft policy would have decided for the tool's latest calls.
import { SimulateRequestSchema, SimulateResponseSchema } from "@/lib/contract/admin-policies";
import { ProjectToolParams } from "@/lib/http/params";
import { toWireSimulation } from "@/lib/http/policy-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  auth: "admin",
  params: ProjectToolParams,
  body: SimulateRequestSchema,
  response: SimulateResponseSchema,
  handler: async ({ params, body }) =>
    toWireSimulation(await services().gate.policies.simulate(params.projectId, params.tool, body.policy, body.sampleSize)),
});
