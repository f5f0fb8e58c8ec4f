// GET, PATCH, DELETE /api/v1/operator/projects/{projectId}/upstreams/{upstreamId} — admins: one upstream; change it (a new secret replaces the old, `null` removes it); delete it. Writes are audited.
import { UpdateUpstreamSchema, UpstreamSchema } from "@/lib/contract/upstreams";
import { UpstreamParams } from "@/lib/http/params";
import { toWireUpstream } from "@/lib/http/upstream-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: UpstreamParams,
  response: UpstreamSchema,
  handler: async ({ params }) => toWireUpstream(await services().upstreams.service.get(params.projectId, params.upstreamId)),
});

export const PATCH = withOperatorRoute({
  role: "admin",
  params: UpstreamParams,
  body: UpdateUpstreamSchema,
  response: UpstreamSchema,
  handler: async ({ params, body, operator }) => toWireUpstream(await services().upstreams.service.update(params.projectId, params.upstreamId, body, operator.actor)),
});

export const DELETE = withOperatorRoute({
  role: "admin",
  params: UpstreamParams,
  response: UpstreamSchema,
  handler: async ({ params, operator }) => toWireUpstream(await services().upstreams.service.delete(params.projectId, params.upstreamId, operator.actor)),
});
