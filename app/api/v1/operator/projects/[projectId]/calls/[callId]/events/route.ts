// GET /api/v1/operator/projects/{projectId}/calls/{callId}/events — viewers: a call's ledger, args and result (redacted).
import { CallLedgerSchema } from "@/lib/contract/calls";
import { toLedgerEvent } from "@/lib/http/call-list-wire";
import { ProjectCallParams } from "@/lib/http/operator-params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "viewer",
  params: ProjectCallParams,
  response: CallLedgerSchema,
  handler: async ({ params }) => {
    const ledger = await services().operators.explorer.callLedger(params.projectId, params.callId);
    return { ...ledger, events: ledger.events.map(toLedgerEvent) };
  },
});
