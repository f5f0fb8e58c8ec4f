// GET /api/v1/resend-requests/{requestId} — agents (project API key): the request's status; once approved, its bypass token, shown once to the key that asked.
import { resendRequestRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute(resendRequestRoute);
