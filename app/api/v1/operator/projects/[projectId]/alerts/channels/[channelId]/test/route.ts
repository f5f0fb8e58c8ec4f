// POST /api/v1/operator/projects/{projectId}/alerts/channels/{channelId}/test — admins: queue one test alert to the channel (audited).
import { AlertChannelParams, AlertDeliverySchema } from "@/lib/contract/alerts";
import { toWireAlertDelivery } from "@/lib/http/alert-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "admin",
  params: AlertChannelParams,
  response: AlertDeliverySchema,
  handler: async ({ params, operator }) =>
    toWireAlertDelivery({ delivery: await services().alerts.service.sendTest(params.projectId, params.channelId, operator.actor), log: [] }),
});
