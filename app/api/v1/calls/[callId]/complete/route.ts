// POST /api/v1/calls/{callId}/complete — agents (project API key): report the outcome of an executed call.
import { completeRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const POST = withApiRoute(completeRoute);
