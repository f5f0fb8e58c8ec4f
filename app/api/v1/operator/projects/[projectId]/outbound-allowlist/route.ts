// GET, POST /api/v1/operator/projects/{projectId}/outbound-allowlist — admins: where this project's upstreams, MCP servers and webhooks may be called.
import { AddOutboundAllowlistEntrySchema, OutboundAllowlistEntrySchema, OutboundAllowlistSchema } from "@/lib/contract/outbound";
import { toWireAllowlistEntry } from "@/lib/http/outbound-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: OutboundAllowlistSchema,
  handler: async ({ params }) => ({ entries: (await services().outbound.allowlist.list(params.projectId)).map(toWireAllowlistEntry) }),
});

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  body: AddOutboundAllowlistEntrySchema,
  response: OutboundAllowlistEntrySchema,
  handler: async ({ params, body, operator }) => toWireAllowlistEntry(await services().outbound.allowlist.add(params.projectId, body, operator.actor)),
});
