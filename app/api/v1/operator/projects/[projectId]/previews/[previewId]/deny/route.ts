// POST /api/v1/operator/projects/{projectId}/previews/{previewId}/deny — operators: deny a pending preview with a note (audited; never the asker).
import { previewDecisionRoute } from "@/lib/http/preview-decision-route";

export const POST = previewDecisionRoute(false);
