// GET /api/v1/admin/projects/{projectId}/stats/storms — operators (admin): the retry storms open now, for the dashboard.
import { StormListResponseSchema } from "@/lib/contract/storms";
import { ProjectParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { getInsights } from "@/lib/server/insights";

/** At most one storm is open per tool: this bounds the answer, not the storms. */
const OPEN_STORMS_LIMIT = 200;

export const GET = withApiRoute({
  auth: "admin",
  params: ProjectParams,
  response: StormListResponseSchema,
  handler: ({ params }) => getInsights().stats.storms(params.projectId, "open", OPEN_STORMS_LIMIT),
});
