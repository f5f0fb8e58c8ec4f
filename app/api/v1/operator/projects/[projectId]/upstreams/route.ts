// GET, POST /api/v1/operator/projects/{projectId}/upstreams — admins: the project's MCP and HTTP upstreams (secrets never shown), and a new one (audited).
import { CreateUpstreamSchema, UpstreamListSchema, UpstreamSchema } from "@/lib/contract/upstreams";
import { ProjectParams } from "@/lib/http/params";
import { toWireUpstream } from "@/lib/http/upstream-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: UpstreamListSchema,
  handler: async ({ params }) => {
    const { service } = services().upstreams;
    return { upstreams: (await service.list(params.projectId)).map(toWireUpstream), stdioCommands: service.stdioCommandNames() };
  },
});

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  body: CreateUpstreamSchema,
  response: UpstreamSchema,
  handler: async ({ params, body, operator }) => toWireUpstream(await services().upstreams.service.create(params.projectId, body, operator.actor)),
});
