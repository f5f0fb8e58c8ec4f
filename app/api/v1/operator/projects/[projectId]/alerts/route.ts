// GET /api/v1/operator/projects/{projectId}/alerts — admins: the project's alert channels (no secrets) and rules.
import { AlertsSchema } from "@/lib/contract/alerts";
import { toWireAlertChannel, toWireAlertRule } from "@/lib/http/alert-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: AlertsSchema,
  handler: async ({ params }) => {
    const { channels, rules, publicUrl } = await services().alerts.service.list(params.projectId);
    return { channels: channels.map(toWireAlertChannel), rules: rules.map(toWireAlertRule), publicUrl };
  },
});
