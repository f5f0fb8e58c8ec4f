// GET /api/v1/operator/projects/{projectId}/tools/{tool}/figures — viewers: one tool's figures over a range (the per-tool page).
import { ToolPageFiguresSchema, ToolPageQuerySchema } from "@/lib/contract/stats";
import { ProjectToolParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

const BUCKET_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectToolParams,
  query: ToolPageQuerySchema,
  response: ToolPageFiguresSchema,
  handler: async ({ params, query }) => {
    const figures = await services().operators.explorer.toolFigures(params.projectId, params.tool, Date.parse(query.from), Date.parse(query.to), BUCKET_MS[query.bucket]);
    const costs = figures.costs.map((c) => ({ ...c, series: c.series.map((p) => ({ at: new Date(p.at).toISOString(), amount: p.amount })) }));
    return { tool: params.tool, from: query.from, to: query.to, ...figures, costs };
  },
});
