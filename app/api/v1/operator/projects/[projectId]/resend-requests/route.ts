// GET, POST /api/v1/operator/projects/{projectId}/resend-requests — viewers: list the project's resend requests; operators: ask for a resend of a completed call.
import { OperatorCreateResendSchema, OperatorResendRequestSchema, ResendListQuerySchema, ResendListSchema } from "@/lib/contract/operator";
import { toOperatorResend } from "@/lib/http/operator-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { apiKeyNames } from "@/lib/server/operators/api-key-names";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: ResendListQuerySchema,
  response: ResendListSchema,
  handler: async ({ params, query }) => {
    const operators = services().operators;
    const [rows, keyNames] = await Promise.all([
      operators.resends.list(params.projectId, query.status ?? null, { limit: query.limit, before: query.before }),
      apiKeyNames(operators.store, params.projectId),
    ]);
    const now = Date.now();
    return { requests: rows.map((row) => toOperatorResend(row, now, keyNames)) };
  },
});

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectParams,
  body: OperatorCreateResendSchema,
  response: OperatorResendRequestSchema,
  handler: async ({ params, body, operator }) =>
    toOperatorResend(await services().operators.resends.requestForCall(params.projectId, body.callId, body.reason, operator.actor), Date.now()),
});
