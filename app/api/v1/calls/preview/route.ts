// POST /api/v1/calls/preview — agents (project API key): store a dry run's preview of a call; returns its previewToken (or, under `approve`, a pending preview).
import { CreatePreviewRequestSchema, PreviewSchema } from "@/lib/contract/previews";
import { clientInfo } from "@/lib/http/client-info";
import { toPreviewInput, toWirePreview } from "@/lib/http/preview-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { agentActor } from "@/lib/server/operator-audit";
import { services } from "@/lib/server/composition-root";

export const POST = withApiRoute({
  body: CreatePreviewRequestSchema,
  response: PreviewSchema,
  handler: async ({ req, body, principal }) =>
    toWirePreview(await services().previews.create(principal.projectId, toPreviewInput(body), agentActor(principal, clientInfo(req)))),
});
