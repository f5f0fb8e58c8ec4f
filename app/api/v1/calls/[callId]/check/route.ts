// POST /api/v1/calls/{callId}/check — agents (project API key): a status check could not tell; recorded on the ledger for operators.
import { checkRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const POST = withApiRoute(checkRoute);
