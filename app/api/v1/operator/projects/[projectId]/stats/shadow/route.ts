// GET /api/v1/operator/projects/{projectId}/stats/shadow?from&to — any member (viewer and up): per tool, the executions shadow mode would have prevented as duplicates.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withOperatorRoute } from "@/lib/http/with-operator-route";

export const GET = withOperatorRoute({ role: "viewer", ...INSIGHT_READS.shadow });
