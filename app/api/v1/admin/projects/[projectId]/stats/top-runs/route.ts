// GET /api/v1/admin/projects/{projectId}/stats/top-runs?from&to&limit — operators (admin): the runs with the most dedup hits among recent begins.
import { TopRunsResponseSchema } from "@/lib/contract/stats";
import { ProjectParams } from "@/lib/http/params";
import { RANGE_RULES, TopRunsQuery, resolveRange } from "@/lib/http/range-query";
import { withApiRoute } from "@/lib/http/with-api-route";
import { getInsights } from "@/lib/server/insights";

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectParams,
  query: TopRunsQuery,
  response: TopRunsResponseSchema,
  handler: ({ params, query }) => getInsights().stats.topRuns(params.projectId, resolveRange(query, RANGE_RULES.topRuns), query.limit),
});
