// GET /api/v1/operator/me — any signed-in operator: who they are and their role in each project.
import { MeSchema } from "@/lib/contract/operator";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "signedIn",
  response: MeSchema,
  handler: async ({ operator: { user } }) => ({
    user: { id: user.id, email: user.email, name: user.name, instanceAdmin: user.instanceAdmin },
    memberships: await services().operators.store.listMemberships(user.id),
  }),
});
