// GET, PUT /api/v1/admin/projects/{projectId}/policies/{tool} — admins (operator session with the admin role, or the admin token): a tool's effective policy (`*`: the project defaults), and replacing its own layer.
import { EffectivePolicyResponseSchema, PolicyChangeResponseSchema, PolicyUpdateRequestSchema } from "@/lib/contract/admin-policies";
import { clientInfo } from "@/lib/http/client-info";
import { ProjectToolParams } from "@/lib/http/params";
import { toWireRevision } from "@/lib/http/policy-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { services } from "@/lib/server/composition-root";
import { auditPolicyChange, policyActor } from "@/lib/server/policies/policy-audit";

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectToolParams,
  response: EffectivePolicyResponseSchema,
  handler: async ({ params }) => services().gate.policies.effective(params.projectId, params.tool),
});

export const PUT = withApiRoute({
  auth: "admin",
  params: ProjectToolParams,
  body: PolicyUpdateRequestSchema,
  response: PolicyChangeResponseSchema,
  handler: async ({ req, params, body, principal }) => {
    const { policy, ...change } = body;
    // A signed-in admin is the author, whatever the body says; the token's caller names one.
    const author = principal.operator?.email ?? change.author;
    const result = await services().gate.policies.update(params.projectId, params.tool, policy, { ...change, author });
    await auditPolicyChange(services().operators.store, policyActor(principal.operator, clientInfo(req)), params.projectId, result.revision);
    return { revision: toWireRevision(result.revision), effective: result.effective };
  },
});
