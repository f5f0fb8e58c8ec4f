// GET /api/v1/operator/projects/{projectId}/decisions — viewers: every begin a figure counted, with or without a call record.
import { DecisionListQuerySchema, DecisionListSchema } from "@/lib/contract/calls";
import { toLedgerEvent } from "@/lib/http/call-list-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: DecisionListQuerySchema,
  response: DecisionListSchema,
  handler: async ({ params, query }) => {
    const list = await services().operators.explorer.listDecisions(params.projectId, query);
    return { ...list, events: list.events.map((event) => ({ ...toLedgerEvent(event), runId: event.runId })) };
  },
});
