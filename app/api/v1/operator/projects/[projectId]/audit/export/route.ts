// GET /api/v1/operator/projects/{projectId}/audit/export — viewers: every audit entry matching the filters, as CSV (streamed page by page).
import { z } from "zod";
import { AuditExportQuerySchema } from "@/lib/contract/operator";
import { auditFilter } from "@/lib/http/audit-filter";
import { csvResponse } from "@/lib/http/csv-response";
import { toWireAudit } from "@/lib/http/operator-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { apiKeyNames } from "@/lib/server/operators/api-key-names";
import { services } from "@/lib/server/composition-root";

const PAGE = 500;
type Entry = ReturnType<typeof toWireAudit>;

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: AuditExportQuerySchema,
  response: z.string().describe("text/csv"),
  handler: async ({ params, query }) => {
    const { store } = services().operators;
    const keyNames = await apiKeyNames(store, params.projectId);
    const filter = auditFilter(query);
    return csvResponse<Entry>({
      filename: `audit-${params.projectId}.csv`,
      columns: [
        { header: "at", value: (e) => e.at },
        { header: "actor_type", value: (e) => e.actor.type },
        { header: "actor", value: (e) => e.actor.name ?? e.actor.label ?? e.actor.id },
        { header: "actor_id", value: (e) => e.actor.id },
        { header: "action", value: (e) => e.action },
        { header: "target_type", value: (e) => e.target.type },
        { header: "target_id", value: (e) => e.target.id },
        { header: "detail", value: (e) => e.detail },
        { header: "ip", value: (e) => e.ip },
        { header: "user_agent", value: (e) => e.userAgent },
        { header: "id", value: (e) => e.id },
      ],
      next: async (before) => {
        const rows = await store.listAudit(params.projectId, { limit: PAGE, before: before ?? undefined }, filter);
        return { rows: rows.map((row) => toWireAudit(row, keyNames)), cursor: rows.length === PAGE ? rows[rows.length - 1]!.id : null };
      },
    });
  },
});
