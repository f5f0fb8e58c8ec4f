// GET, POST, PUT, PATCH, DELETE /gw/{upstream}/… — agents (project API key): an HTTP upstream behind the gate; POST and PATCH need Idempotency-Key or Idemgate-Run-Id.
import { withGatewayRoute } from "@/lib/http/with-gateway-route";
import { clientInfo } from "@/lib/http/client-info";
import { services } from "@/lib/server/composition-root";
import { agentActor } from "@/lib/server/operators/operator-audit";

const forward = withGatewayRoute(({ req, principal, params }) =>
  services().httpGateway.handle({
    projectId: principal.projectId,
    upstream: params.upstream,
    path: params.path,
    req,
    caller: { apiKeyId: principal.apiKeyId, actor: agentActor(principal, clientInfo(req)) },
  }),
);

export const GET = forward;
export const POST = forward;
export const PUT = forward;
export const PATCH = forward;
export const DELETE = forward;
