// GET /api/v1/operator/projects/{projectId}/storms?status=open|closed — any member (viewer and up): the project's retry-storm incidents, latest first.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withOperatorRoute } from "@/lib/http/with-operator-route";

export const GET = withOperatorRoute({ role: "viewer", ...INSIGHT_READS.storms });
