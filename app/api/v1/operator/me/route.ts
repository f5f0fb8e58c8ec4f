// GET /api/v1/operator/me — any signed-in operator: who they are and their role in each project.
import { MeSchema } from "@/lib/contract/operator";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { getOperators } from "@/lib/server/operator-context";

export const GET = withOperatorRoute({
  role: "signedIn",
  response: MeSchema,
  handler: async ({ operator: { user } }) => ({
    user: { id: user.id, email: user.email, name: user.name, instanceAdmin: user.instanceAdmin },
    memberships: await getOperators().store.listMemberships(user.id),
  }),
});
