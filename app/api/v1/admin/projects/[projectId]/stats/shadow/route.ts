// GET /api/v1/admin/projects/{projectId}/stats/shadow?from&to — operators (admin token or admin session): per tool, the executions shadow mode would have prevented as duplicates.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute({ auth: "admin", ...INSIGHT_READS.shadow });
