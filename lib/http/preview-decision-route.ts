import { DecidePreviewSchema, OperatorPreviewSchema } from "../contract/previews";
import { apiKeyNames } from "../server/operators/api-key-names";
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
    handler: async ({ params, body, operator }) => {
      const [decided, keyNames] = await Promise.all([
        services().previews.decide(params.projectId, params.previewId, approve, body.note, operator.actor),
        apiKeyNames(services().operators.store, params.projectId),
      ]);
      return toOperatorPreview(decided, keyNames);
    },
  });
}
