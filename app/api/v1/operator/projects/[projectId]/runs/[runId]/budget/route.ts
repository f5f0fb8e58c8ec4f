// GET, POST /api/v1/operator/projects/{projectId}/runs/{runId}/budget — viewers read a run's spend; operators raise its limits (audited).
import { RaiseRunBudgetRequestSchema, RunBudgetSchema } from "@/lib/contract/budgets";
import { ProjectRunParams } from "@/lib/http/call-list-params";
import { toRunBudget } from "@/lib/http/budget-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectRunParams,
  response: RunBudgetSchema,
  handler: async ({ params }) => toRunBudget(await services().budgets.get(params.projectId, params.runId)),
});

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectRunParams,
  body: RaiseRunBudgetRequestSchema,
  response: RunBudgetSchema,
  handler: async ({ params, body, operator }) => toRunBudget(await services().budgets.raise(params.projectId, params.runId, body, operator.actor)),
});
