// POST /api/v1/calls/begin — agents (project API key): may this tool call run?
import { beginRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const POST = withApiRoute(beginRoute);
