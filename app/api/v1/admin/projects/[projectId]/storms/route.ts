// GET /api/v1/admin/projects/{projectId}/storms?status=open|closed — operators (admin token or admin session): the project's retry-storm incidents, latest first.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute({ auth: "admin", ...INSIGHT_READS.storms });
