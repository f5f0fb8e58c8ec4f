// POST /api/v1/operator/projects/{projectId}/previews/{previewId}/approve — operators: approve a pending preview with a note (audited; never the asker).
import { previewDecisionRoute } from "@/lib/http/preview-decision-route";

export const POST = previewDecisionRoute(true);
