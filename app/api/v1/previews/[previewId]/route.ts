// GET /api/v1/previews/{previewId} — agents (project API key): a preview's status; once ready or approved, a fresh single-use previewToken.
import { PreviewSchema } from "@/lib/contract/previews";
import { PreviewIdParams } from "@/lib/http/params";
import { toWirePreview } from "@/lib/http/preview-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { getPreviews } from "@/lib/server/previews/preview-context";

export const GET = withApiRoute({
  params: PreviewIdParams,
  response: PreviewSchema,
  handler: async ({ params, principal }) => toWirePreview(await getPreviews().read(principal.projectId, params.previewId)),
});
