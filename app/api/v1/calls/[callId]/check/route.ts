// POST /api/v1/calls/{callId}/check — agents (project API key): a status check could not tell; recorded on the ledger for operators.
import { CallStatusSchema, CheckReportRequestSchema } from "@/lib/contract/v1";
import { CallIdParams } from "@/lib/http/params";
import { withApiRoute } from "@/lib/http/with-api-route";
import { toCallStatus } from "@/lib/http/wire";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  params: CallIdParams,
  body: CheckReportRequestSchema,
  response: CallStatusSchema,
  handler: async ({ body, params, principal }) =>
    toCallStatus(await services().gate.service.reportUnknownCheck(principal.projectId, params.callId, body.leaseToken, body.reason ?? null)),
});
