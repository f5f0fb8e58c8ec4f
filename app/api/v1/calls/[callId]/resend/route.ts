// POST /api/v1/calls/{callId}/resend — agents (project API key): ask a human to let a completed call run once more.
import { resendRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const POST = withApiRoute(resendRoute);
