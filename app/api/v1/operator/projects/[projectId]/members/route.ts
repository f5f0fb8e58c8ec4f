// GET, POST /api/v1/operator/projects/{projectId}/members — admins: the project's operators, and adding one (creating the account when new).
import { AddMemberSchema, MemberListSchema, MemberSchema } from "@/lib/contract/operator";
import { toWireMember } from "@/lib/http/operator-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: MemberListSchema,
  handler: async ({ params }) => ({ members: (await services().operators.members.list(params.projectId)).map(toWireMember) }),
});

export const POST = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  body: AddMemberSchema,
  response: MemberSchema,
  handler: async ({ params, body, operator }) => toWireMember(await services().operators.members.add(params.projectId, body, operator.actor)),
});
