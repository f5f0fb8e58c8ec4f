// POST /api/v1/calls/{callId}/heartbeat — agents (project API key): keep a long-running lease.
import { heartbeatRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const POST = withApiRoute(heartbeatRoute);
