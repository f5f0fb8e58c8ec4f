// GET, POST /api/v1/operator/projects/{projectId}/api-keys — admins: the project's API keys (never the keys themselves), and a new key, shown once.
import { ApiKeyListSchema, CreateApiKeySchema, CreatedApiKeySchema } from "@/lib/contract/operator";
import { toWireApiKey } from "@/lib/http/operator-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { getOperators } from "@/lib/server/operator-context";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: ApiKeyListSchema,
  handler: async ({ params }) => ({ keys: (await getOperators().apiKeys.list(params.projectId)).map(toWireApiKey) }),
});

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  body: CreateApiKeySchema,
  response: CreatedApiKeySchema,
  handler: async ({ params, body, operator }) => {
    const { key, row } = await getOperators().apiKeys.create(params.projectId, body.name, operator.actor);
    return { ...toWireApiKey(row), key };
  },
});
