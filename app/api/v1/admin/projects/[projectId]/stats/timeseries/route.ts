// GET /api/v1/admin/projects/{projectId}/stats/timeseries?bucket=minute|hour|day&from&to&tool — operators (admin token or admin session): decisions per tool and bucket, from the rollups.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute({ auth: "admin", ...INSIGHT_READS.timeseries });
