// GET /api/v1/operator/projects/{projectId}/queue — viewers: the operators' queue (failed compensations, unknown status checks, unfinished operations, verify tally over ?from&to).
import { OperatorQueueSchema } from "@/lib/contract/operator-queue";
import { toOperatorQueue } from "@/lib/http/operator-queue-wire";
import { ProjectParams } from "@/lib/http/params";
import { QueueQuery, RANGE_RULES, resolveRange } from "@/lib/http/range-query";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: QueueQuery,
  response: OperatorQueueSchema,
  handler: async ({ params, query }) => toOperatorQueue(await services().operatorQueue.view(params.projectId, resolveRange(query, RANGE_RULES.queue))),
});
