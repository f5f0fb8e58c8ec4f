// GET /api/v1/operator/projects/{projectId}/runs — viewers: runs, newest first, with their counts and saga state; cursor-paged.
import { RunListQuerySchema, RunListSchema } from "@/lib/contract/calls";
import { toRunSummary } from "@/lib/http/call-list-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: RunListQuerySchema,
  response: RunListSchema,
  handler: async ({ params, query }) => {
    const page = await services().operators.explorer.listRuns(params.projectId, query);
    const states = await services().sagas.statesOf(params.projectId, page.items.map((run) => run.runId));
    return { runs: page.items.map((run) => toRunSummary(run, states.get(run.runId) ?? "running")), nextCursor: page.nextCursor };
  },
});
