// GET /api/v1/operator/projects/{projectId}/storms/{stormId} — any member (viewer and up): one incident and its dedup-hit rate against its baseline.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withOperatorRoute } from "@/lib/http/with-operator-route";

export const GET = withOperatorRoute({ role: "viewer", ...INSIGHT_READS.storm });
