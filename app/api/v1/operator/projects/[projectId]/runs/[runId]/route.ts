// GET /api/v1/operator/projects/{projectId}/runs/{runId} — viewers: a run's calls and events across its subagents.
import { RunDetailSchema } from "@/lib/contract/calls";
import { toCallSummary, toLedgerEvent } from "@/lib/http/call-list-wire";
import { ProjectRunParams } from "@/lib/http/call-list-params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectRunParams,
  response: RunDetailSchema,
  handler: async ({ params }) => {
    const run = await services().operators.explorer.run(params.projectId, params.runId);
    return { runId: run.runId, calls: run.calls.map(toCallSummary), events: run.events.map(toLedgerEvent), truncated: run.truncated };
  },
});
