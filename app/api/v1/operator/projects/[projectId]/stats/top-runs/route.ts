// GET /api/v1/operator/projects/{projectId}/stats/top-runs?from&to&limit — any member (viewer and up): the runs with the most dedup hits among recent begins.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withOperatorRoute } from "@/lib/http/with-operator-route";

export const GET = withOperatorRoute({ role: "viewer", ...INSIGHT_READS.topRuns });
