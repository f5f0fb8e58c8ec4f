// GET /api/v1/operator/projects/{projectId}/calls — viewers: the project's calls, newest first, filtered and cursor-paged.
import { CallListQuerySchema, CallListSchema } from "@/lib/contract/calls";
import { toCallSummary } from "@/lib/http/call-list-wire";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: CallListQuerySchema,
  response: CallListSchema,
  handler: async ({ params, query }) => {
    const page = await services().operators.explorer.listCalls(params.projectId, query);
    return { calls: page.items.map(toCallSummary), nextCursor: page.nextCursor };
  },
});
