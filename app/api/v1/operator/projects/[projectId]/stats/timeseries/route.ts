// GET /api/v1/operator/projects/{projectId}/stats/timeseries?bucket=minute|hour|day&from&to&tool — any member (viewer and up): decisions per tool and bucket, from the rollups.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withOperatorRoute } from "@/lib/http/with-operator-route";

export const GET = withOperatorRoute({ role: "viewer", ...INSIGHT_READS.timeseries });
