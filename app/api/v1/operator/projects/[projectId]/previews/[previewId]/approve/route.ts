// POST /api/v1/operator/projects/{projectId}/previews/{previewId}/approve — operators: approve a pending preview with a note (audited; never the asker).
import { DecidePreviewSchema, OperatorPreviewSchema } from "@/lib/contract/previews";
import { ProjectPreviewParams } from "@/lib/http/params";
import { toOperatorPreview } from "@/lib/http/preview-wire";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { getPreviews } from "@/lib/server/previews/preview-context";

export const POST = withOperatorRoute({
  role: "operator",
  params: ProjectPreviewParams,
  body: DecidePreviewSchema,
  response: OperatorPreviewSchema,
  handler: async ({ params, body, operator }) =>
    toOperatorPreview(await getPreviews().decide(params.projectId, params.previewId, true, body.note, operator.actor)),
});
