// GET /api/v1/admin/projects/{projectId}/storms?status=open|closed — operators (admin): the project's retry-storm incidents, latest first.
import { StormListQuerySchema, StormListResponseSchema } from "@/lib/contract/storms";
import { ProjectParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { getInsights } from "@/lib/server/insights";

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectParams,
  query: StormListQuerySchema,
  response: StormListResponseSchema,
  handler: ({ params, query }) => getInsights().stats.storms(params.projectId, query.status ?? null, query.limit),
});
