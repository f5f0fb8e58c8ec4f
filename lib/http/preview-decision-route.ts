import { DecidePreviewSchema, OperatorPreviewSchema } from "../contract/previews";
import { services } from "../server/composition-root";
import { ProjectPreviewParams } from "./params";
import { toOperatorPreview } from "./preview-wire";
import { withOperatorRoute } from "./with-operator-route";

/** The approve and deny routes: one operator decision on a pending preview, with a note (audited). */
export function previewDecisionRoute(approve: boolean) {
  return withOperatorRoute({
    role: "operator",
    params: ProjectPreviewParams,
    body: DecidePreviewSchema,
    response: OperatorPreviewSchema,
    handler: async ({ params, body, operator }) =>
      toOperatorPreview(await services().previews.decide(params.projectId, params.previewId, approve, body.note, operator.actor)),
  });
}
