// GET /api/v1/admin/projects/{projectId}/stats/top-runs?from&to&limit — operators (admin token or admin session): the runs with the most dedup hits among recent begins.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute({ auth: "admin", ...INSIGHT_READS.topRuns });
