// GET /api/v1/admin/projects/{projectId}/stats/storms — operators (admin token or admin session): the retry storms open now, for the dashboard.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute({ auth: "admin", ...INSIGHT_READS.openStorms });
