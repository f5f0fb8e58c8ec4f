// GET /api/v1/admin/projects/{projectId}/stats/dedup?from&to — operators (admin token or admin session): dedup rate and decision figures per tool, from the rollups.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute({ auth: "admin", ...INSIGHT_READS.dedup });
