// GET, POST /api/v1/operator/projects/{projectId}/api-keys — admins: the project's API keys (never the keys themselves), and a new key, shown once.
import { ApiKeyListSchema, CreateApiKeySchema, CreatedApiKeySchema } from "@/lib/contract/operator";
import { toWireApiKey } from "@/lib/http/operator-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: ApiKeyListSchema,
  handler: async ({ params }) => ({ keys: (await services().operators.apiKeys.list(params.projectId)).map(toWireApiKey) }),
});

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  body: CreateApiKeySchema,
  response: CreatedApiKeySchema,
  handler: async ({ params, body, operator }) => {
    const { key, row } = await services().operators.apiKeys.create(params.projectId, body.name, operator.actor);
    return { ...toWireApiKey(row), key };
  },
});
