// GET /api/v1/operator/projects/{projectId}/stats/dedup?from&to — any member (viewer and up): dedup rate and decision figures per tool, from the rollups.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withOperatorRoute } from "@/lib/http/with-operator-route";

export const GET = withOperatorRoute({ role: "viewer", ...INSIGHT_READS.dedup });
