// GET /api/v1/operator/projects/{projectId}/audit — viewers: the project's append-only audit log, newest first.
import { AuditListSchema, AuditQuerySchema } from "@/lib/contract/operator";
import { toWireAudit } from "@/lib/http/operator-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { getOperators } from "@/lib/server/operator-context";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: AuditQuerySchema,
  response: AuditListSchema,
  handler: async ({ params, query }) => {
    const entries = await getOperators().store.listAudit(params.projectId, { limit: query.limit, before: query.before });
    return { entries: entries.map(toWireAudit), nextBefore: entries.length === query.limit ? entries[entries.length - 1]!.id : null };
  },
});
