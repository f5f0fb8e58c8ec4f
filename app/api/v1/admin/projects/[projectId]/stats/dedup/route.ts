// GET /api/v1/admin/projects/{projectId}/stats/dedup?from&to — operators (admin): dedup rate and decision figures per tool, from the rollups.
import { DedupResponseSchema } from "@/lib/contract/stats";
import { ProjectParams } from "@/lib/http/params";
import { DedupQuery, RANGE_RULES, resolveRange } from "@/lib/http/range-query";
import { withApiRoute } from "@/lib/http/with-api-route";
import { getInsights } from "@/lib/server/insights";

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectParams,
  query: DedupQuery,
  response: DedupResponseSchema,
  handler: ({ params, query }) => getInsights().stats.dedup(params.projectId, resolveRange(query, RANGE_RULES.dedup)),
});
