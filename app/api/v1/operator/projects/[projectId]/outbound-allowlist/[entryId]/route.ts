// DELETE /api/v1/operator/projects/{projectId}/outbound-allowlist/{entryId} — admins: stop admitting a host; effective on the next outbound call.
import { OutboundAllowlistEntrySchema, OutboundEntryParams } from "@/lib/contract/outbound";
import { toWireAllowlistEntry } from "@/lib/http/outbound-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const DELETE = withOperatorRoute({
  role: "admin",
  params: OutboundEntryParams,
  response: OutboundAllowlistEntrySchema,
  handler: async ({ params, operator }) => toWireAllowlistEntry(await services().outbound.allowlist.remove(params.projectId, params.entryId, operator.actor)),
});
