// POST /api/v1/operator/projects/{projectId}/api-keys/{keyId}/revoke — admins: revoke a key (every gate instance refuses it within 5 s).
import { ApiKeySchema } from "@/lib/contract/operator";
import { ProjectKeyParams } from "@/lib/http/operator-params";
import { toWireApiKey } from "@/lib/http/operator-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectKeyParams,
  response: ApiKeySchema,
  handler: async ({ params, operator }) => toWireApiKey(await services().operators.apiKeys.revoke(params.projectId, params.keyId, operator.actor)),
});
