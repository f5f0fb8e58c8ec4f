// GET, POST, PUT, PATCH, DELETE /gw/{upstream}/… — agents (project API key): an HTTP upstream behind the gate; POST and PATCH need Idempotency-Key or Idemgate-Run-Id.
import { withGatewayRoute } from "@/lib/http/with-gateway-route";
import { services } from "@/lib/server/composition-root";

const forward = withGatewayRoute(({ req, principal, params }) =>
  services().httpGateway.handle({ projectId: principal.projectId, upstream: params.upstream, path: params.path, req }),
);

export const GET = forward;
export const POST = forward;
export const PUT = forward;
export const PATCH = forward;
export const DELETE = forward;
