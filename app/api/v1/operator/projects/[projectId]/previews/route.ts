// GET /api/v1/operator/projects/{projectId}/previews — viewers: the approvals inbox's previews (summary, affected resources, exact args).
import { PreviewListQuerySchema, PreviewListSchema } from "@/lib/contract/previews";
import { ProjectParams } from "@/lib/http/params";
import { toOperatorPreview } from "@/lib/http/preview-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { apiKeyNames } from "@/lib/server/operators/api-key-names";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: PreviewListQuerySchema,
  response: PreviewListSchema,
  handler: async ({ params, query }) => {
    const [rows, keyNames] = await Promise.all([
      services().previews.list(params.projectId, query.status, query.limit),
      apiKeyNames(services().operators.store, params.projectId),
    ]);
    return { previews: rows.map((row) => toOperatorPreview(row, keyNames)) };
  },
});
