// GET /api/v1/admin/projects/{projectId}/stats/timeseries?bucket=minute|hour|day&from&to&tool — operators (admin): decisions per tool and bucket, from the rollups.
import { TimeseriesResponseSchema } from "@/lib/contract/stats";
import { ProjectParams } from "@/lib/http/params";
import { RANGE_RULES, TimeseriesQuery, resolveRange } from "@/lib/http/range-query";
import { withApiRoute } from "@/lib/http/with-api-route";
import { getInsights } from "@/lib/server/insights";

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectParams,
  query: TimeseriesQuery,
  response: TimeseriesResponseSchema,
  handler: ({ params, query }) =>
    getInsights().stats.timeseries(params.projectId, resolveRange(query, RANGE_RULES.timeseries(query.bucket)), query.bucket, query.tool ?? null),
});
