// GET /api/v1/operator/projects/{projectId}/alerts/deliveries — admins: the latest alert deliveries with each attempt's status and response code.
import { AlertDeliveriesSchema } from "@/lib/contract/alerts";
import { toWireAlertDelivery } from "@/lib/http/alert-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: AlertDeliveriesSchema,
  handler: async ({ params }) => ({ deliveries: (await services().alerts.service.deliveries(params.projectId, 100)).map(toWireAlertDelivery) }),
});
