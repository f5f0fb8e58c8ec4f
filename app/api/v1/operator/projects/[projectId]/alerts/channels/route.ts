// POST /api/v1/operator/projects/{projectId}/alerts/channels — admins: add a Slack, PagerDuty or signed webhook channel (URL through the outbound allowlist).
import { CreateAlertChannelSchema, CreatedAlertChannelSchema } from "@/lib/contract/alerts";
import { toWireAlertChannel } from "@/lib/http/alert-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  body: CreateAlertChannelSchema,
  response: CreatedAlertChannelSchema,
  handler: async ({ params, body, operator }) => {
    const { channel, signingSecret } = await services().alerts.service.addChannel(params.projectId, body, operator.actor);
    return { ...toWireAlertChannel(channel), ...(signingSecret ? { signingSecret } : {}) };
  },
});
