// GET /api/v1/admin/projects/{projectId}/storms/{stormId} — operators (admin token or admin session): one incident and its dedup-hit rate against its baseline.
import { INSIGHT_READS } from "@/lib/http/insight-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute({ auth: "admin", ...INSIGHT_READS.storm });
