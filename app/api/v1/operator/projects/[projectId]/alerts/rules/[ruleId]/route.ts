// DELETE /api/v1/operator/projects/{projectId}/alerts/rules/{ruleId} — admins: remove an alert rule.
import { AlertRuleParams, AlertRuleSchema } from "@/lib/contract/alerts";
import { toWireAlertRule } from "@/lib/http/alert-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const DELETE = withOperatorRoute({
  role: "admin",
  params: AlertRuleParams,
  response: AlertRuleSchema,
  handler: async ({ params, operator }) => toWireAlertRule(await services().alerts.service.removeRule(params.projectId, params.ruleId, operator.actor)),
});
