/**
 * Previews (DESIGN.md "Additions"): a destructive tool's first execution needs a token bound to the
 * key and args fingerprint that were previewed; under `approve`, a human approved that preview
 * first. Pure decisions over a preview's row; the store applies them with compare-and-set.
 */
export type PreviewStatus = "ready" | "pending" | "approved" | "denied" | "used";
export type PreviewTokenError = "preview_token_invalid" | "preview_token_mismatch" | "preview_token_used" | "preview_token_expired";

export interface PreviewState {
  id: string;
  key: string;
  argsFingerprint: string;
  mode: "required" | "approve";
  status: PreviewStatus;
  requestedBy: string;
  tokenExpiresAt: number | null;
  usedAt: number | null;
  expiresAt: number;
  version: number;
}

/** Whether a begin may execute with the token that found `preview` (null: no such token). */
export function checkPreviewToken(
  preview: PreviewState | null,
  call: { key: string; argsFingerprint: string },
  now: number,
): { ok: true } | { ok: false; code: PreviewTokenError; message: string } {
  if (!preview || (preview.status !== "ready" && preview.status !== "approved" && preview.status !== "used")) {
    return { ok: false, code: "preview_token_invalid", message: "no usable preview has this token" };
  }
  if (preview.usedAt !== null || preview.status === "used") return { ok: false, code: "preview_token_used", message: "the preview token already ran once: preview again" };
  if (preview.tokenExpiresAt === null || preview.tokenExpiresAt <= now) return { ok: false, code: "preview_token_expired", message: "the preview token expired: fetch a new one or preview again" };
  if (preview.key !== call.key || preview.argsFingerprint !== call.argsFingerprint) {
    return { ok: false, code: "preview_token_mismatch", message: "the preview token was issued for another call or other args: preview these args" };
  }
  return { ok: true };
}

/**
 * A token is (re)issued to the asking agent whenever it reads a ready or approved preview that has
 * not run: only its hash is stored, so a lost answer is healed by reading again, which replaces it.
 */
export function mayIssueToken(preview: PreviewState, now: number): boolean {
  return (preview.status === "ready" || preview.status === "approved") && preview.usedAt === null && preview.expiresAt > now;
}

export type PreviewVerdict =
  | { ok: true; status: "approved" | "denied" }
  | { ok: false; code: "invalid_state" | "self_approval"; message: string };

/** An operator's decision on a pending preview; never by whoever asked for it. */
export function decidePreview(preview: PreviewState, approve: boolean, actorId: string | null, now: number): PreviewVerdict {
  if (preview.status !== "pending") return { ok: false, code: "invalid_state", message: `the preview is ${preview.status}, not pending` };
  if (preview.expiresAt <= now) return { ok: false, code: "invalid_state", message: "the preview expired: the agent must preview again" };
  if (actorId !== null && actorId === preview.requestedBy) return { ok: false, code: "self_approval", message: "a preview is approved by someone other than who asked for it" };
  return { ok: true, status: approve ? "approved" : "denied" };
}
