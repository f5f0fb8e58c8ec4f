// GET /api/v1/previews/{previewId} — agents (project API key): a preview's status; once ready or approved, a fresh single-use previewToken.
import { PreviewSchema } from "@/lib/contract/previews";
import { PreviewIdParams } from "@/lib/http/params";
import { toWirePreview } from "@/lib/http/preview-wire";
import { withApiRoute } from "@/lib/http/with-api-route";
import { services } from "@/lib/server/composition-root";

export const GET = withApiRoute({
  params: PreviewIdParams,
  response: PreviewSchema,
  handler: async ({ params, principal }) => toWirePreview(await services().previews.read(principal.projectId, params.previewId)),
});
