import type { PreviewGate } from "./preview-gate";

/** The gate's preview check, resolved on first use (the preview service is built from the gate). */
export const lazyPreviewGate: PreviewGate = {
  redeem: async (projectId, token, call) => (await import("./preview-context")).getPreviews().redeem(projectId, token, call),
};
