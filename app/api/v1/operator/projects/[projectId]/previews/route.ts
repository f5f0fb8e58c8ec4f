// GET /api/v1/operator/projects/{projectId}/previews — viewers: the approvals inbox's previews (summary, affected resources, exact args).
import { PreviewListQuerySchema, PreviewListSchema } from "@/lib/contract/previews";
import { ProjectParams } from "@/lib/http/params";
import { toOperatorPreview } from "@/lib/http/preview-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: PreviewListQuerySchema,
  response: PreviewListSchema,
  handler: async ({ params, query }) => ({
    previews: (await services().previews.list(params.projectId, query.status, query.limit)).map(toOperatorPreview),
  }),
});
