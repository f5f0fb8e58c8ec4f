// GET /api/v1/calls/{callId} — agents (project API key): a call's status, for async tools and pollers.
import { callStatusRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const GET = withApiRoute(callStatusRoute);
