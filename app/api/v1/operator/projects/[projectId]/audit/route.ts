// GET /api/v1/operator/projects/{projectId}/audit — viewers: the project's append-only audit log, newest first, filtered by actor, action and time.
import { AuditListSchema, AuditQuerySchema } from "@/lib/contract/operator";
import { auditFilter } from "@/lib/http/audit-filter";
import { toWireAudit } from "@/lib/http/operator-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { apiKeyNames } from "@/lib/server/operators/api-key-names";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: AuditQuerySchema,
  response: AuditListSchema,
  handler: async ({ params, query }) => {
    const { store } = services().operators;
    const [entries, keyNames] = await Promise.all([
      store.listAudit(params.projectId, { limit: query.limit, before: query.before }, auditFilter(query)),
      apiKeyNames(store, params.projectId),
    ]);
    return { entries: entries.map((row) => toWireAudit(row, keyNames)), nextBefore: entries.length === query.limit ? entries[entries.length - 1]!.id : null };
  },
});
