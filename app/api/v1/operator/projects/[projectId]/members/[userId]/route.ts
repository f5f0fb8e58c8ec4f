// PUT, DELETE /api/v1/operator/projects/{projectId}/members/{userId} — admins: change a member's role, or remove them from the project.
import { MemberSchema, SetRoleSchema } from "@/lib/contract/operator";
import { ProjectUserParams } from "@/lib/http/operator-params";
import { toWireMember } from "@/lib/http/operator-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const PUT = withOperatorRoute({
  role: "admin",
  params: ProjectUserParams,
  body: SetRoleSchema,
  response: MemberSchema,
  handler: async ({ params, body, operator }) =>
    toWireMember(await services().operators.members.setRole(params.projectId, params.userId, body.role, operator.actor)),
});

export const DELETE = withOperatorRoute({
  role: "admin",
  params: ProjectUserParams,
  response: MemberSchema,
  handler: async ({ params, operator }) => toWireMember(await services().operators.members.remove(params.projectId, params.userId, operator.actor)),
});
