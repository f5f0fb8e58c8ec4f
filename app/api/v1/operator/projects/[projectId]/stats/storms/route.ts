// GET /api/v1/operator/projects/{projectId}/stats/storms — any member (viewer and up): the retry storms open now, for the dashboard.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withOperatorRoute } from "@/lib/http/with-operator-route";

export const GET = withOperatorRoute({ role: "viewer", ...INSIGHT_READS.openStorms });
