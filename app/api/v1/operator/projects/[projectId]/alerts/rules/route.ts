// POST /api/v1/operator/projects/{projectId}/alerts/rules — admins: send a condition (optionally for one tool) to channels.
import { AlertRuleSchema, CreateAlertRuleSchema } from "@/lib/contract/alerts";
import { toWireAlertRule } from "@/lib/http/alert-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  body: CreateAlertRuleSchema,
  response: AlertRuleSchema,
  handler: async ({ params, body, operator }) => toWireAlertRule(await services().alerts.service.addRule(params.projectId, body, operator.actor)),
});
