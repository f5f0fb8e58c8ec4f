// POST /api/v1/admin/projects/{projectId}/policies/{tool}/revisions/{version}/restore — admins (operator session with the admin role, or the admin token): make a past revision current again (as a new revision).
import { PolicyChangeResponseSchema, PolicyRestoreRequestSchema } from "@/lib/contract/admin-policies";
import { clientInfo } from "@/lib/http/client-info";
import { RevisionParams } from "@/lib/http/params";
import { toWireRevision } from "@/lib/http/policy-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { services } from "@/lib/server/composition-root";
import { auditPolicyChange, policyActor } from "@/lib/server/policies/policy-audit";

export const POST = withApiRoute({
  auth: "admin",
  params: RevisionParams,
  body: PolicyRestoreRequestSchema,
  response: PolicyChangeResponseSchema,
  handler: async ({ req, params, body, principal }) => {
    const author = principal.operator?.email ?? body.author;
    const result = await services().gate.policies.restore(params.projectId, params.tool, params.version, { ...body, author });
    await auditPolicyChange(services().operators.store, policyActor(principal.operator, clientInfo(req)), params.projectId, result.revision);
    return { revision: toWireRevision(result.revision), effective: result.effective };
  },
});
