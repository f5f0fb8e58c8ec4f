// GET, PATCH, DELETE /api/v1/operator/projects/{projectId}/upstreams/{upstreamId} — admins: one upstream; change it (a new secret replaces the old, `null` removes it); delete it. Writes are audited.
import { UpdateUpstreamSchema, UpstreamSchema } from "@/lib/contract/upstreams";
import { UpstreamParams } from "@/lib/http/params";
import { toWireUpstream } from "@/lib/http/upstream-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { getUpstreams } from "@/lib/server/upstreams/upstream-context";

export const GET = withOperatorRoute({
  role: "admin",
  params: UpstreamParams,
  response: UpstreamSchema,
  handler: async ({ params }) => toWireUpstream(await getUpstreams().service.get(params.projectId, params.upstreamId)),
});

export const PATCH = withOperatorRoute({
  role: "admin",
  params: UpstreamParams,
  body: UpdateUpstreamSchema,
  response: UpstreamSchema,
  handler: async ({ params, body, operator }) => toWireUpstream(await getUpstreams().service.update(params.projectId, params.upstreamId, body, operator.actor)),
});

export const DELETE = withOperatorRoute({
  role: "admin",
  params: UpstreamParams,
  response: UpstreamSchema,
  handler: async ({ params, operator }) => toWireUpstream(await getUpstreams().service.delete(params.projectId, params.upstreamId, operator.actor)),
});
