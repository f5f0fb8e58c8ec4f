// POST /api/v1/calls/begin — agents (project API key): may this tool call run?
import { BeginRequestSchema, BeginResponseSchema } from "@/lib/contract/v1";
import { withApiRoute } from "@/lib/http/with-api-route";
import { toWireDecision } from "@/lib/http/wire";
import { getGate } from "@/lib/server/gate";

export const POST = withApiRoute({
  body: BeginRequestSchema,
  response: BeginResponseSchema,
  handler: async ({ body, principal }) =>
    toWireDecision(
      await getGate().service.begin(principal.projectId, {
        tool: body.tool,
        runId: body.runId,
        stepId: body.stepId ?? null,
        scope: body.scope ?? null,
        toolCallId: body.toolCallId ?? null,
        agentId: body.agentId ?? null,
        args: body.args,
        waitMs: body.waitMs,
      }),
    ),
});
