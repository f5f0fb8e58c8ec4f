// GET /api/v1/operator/projects/{projectId}/calls/export — viewers: every call matching the calls list's filters, newest first, as CSV (streamed page by page).
import { z } from "zod";
import { type CallSummary, CallListQuerySchema } from "@/lib/contract/calls";
import { toCallSummary } from "@/lib/http/call-list-wire";
import { csvResponse } from "@/lib/http/csv-response";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectParams,
  query: CallListQuerySchema,
  response: z.string().describe("text/csv"),
  handler: async ({ params, query }) =>
    csvResponse<CallSummary>({
      filename: `calls-${params.projectId}.csv`,
      columns: [
        { header: "first_seen", value: (c) => c.createdAt },
        { header: "call_id", value: (c) => c.callId },
        { header: "tool", value: (c) => c.tool },
        { header: "status", value: (c) => c.status },
        { header: "last_decision", value: (c) => c.lastDecision?.decision },
        { header: "last_decision_at", value: (c) => c.lastDecision?.at },
        { header: "run_id", value: (c) => c.runId },
        { header: "step_id", value: (c) => c.stepId },
        { header: "scope", value: (c) => c.scope },
        { header: "agent_id", value: (c) => c.agentId },
        { header: "attempts", value: (c) => c.attempts },
        { header: "replays", value: (c) => c.replays },
        { header: "generation", value: (c) => c.generation },
        { header: "key", value: (c) => c.key },
        { header: "completed_at", value: (c) => c.completedAt },
      ],
      // The list's own cursor pages, at the largest page size, until the last one.
      next: async (cursor) => {
        const page = await services().operators.explorer.listCalls(params.projectId, { ...query, limit: 200, cursor: cursor ?? query.cursor });
        return { rows: page.items.map(toCallSummary), cursor: page.nextCursor };
      },
    }),
});
