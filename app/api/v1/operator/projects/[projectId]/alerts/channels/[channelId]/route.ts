// DELETE /api/v1/operator/projects/{projectId}/alerts/channels/{channelId} — admins: remove a channel (rules stop naming it).
import { AlertChannelParams, AlertChannelSchema } from "@/lib/contract/alerts";
import { toWireAlertChannel } from "@/lib/http/alert-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const DELETE = withOperatorRoute({
  role: "admin",
  params: AlertChannelParams,
  response: AlertChannelSchema,
  handler: async ({ params, operator }) => toWireAlertChannel(await services().alerts.service.removeChannel(params.projectId, params.channelId, operator.actor)),
});
