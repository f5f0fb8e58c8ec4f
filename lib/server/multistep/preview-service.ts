import { sha256Hex } from "../../core/canonical";
import { checkPreviewToken, decidePreview, mayIssueToken, type PreviewStatus } from "../../core/plan-preview";
import type { BeginCall } from "../../core/prepare-call";
import type { PreviewRepository, PreviewRow } from "../../store/prisma/preview-repository";
import { AppError } from "../app-error";
import type { GateService } from "../gate/gate-service";
import type { PreviewGate } from "./preview-gate";
import { newId, newSecret } from "../ids";
import { type Actor, auditEntry } from "../operators/operator-audit";

export const PREVIEW_TOKEN_PREFIX = "igpt_";
/** Short: the token stands for what was previewed a moment ago, not for the state of the world tomorrow. */
const TOKEN_TTL_MS = 10 * 60_000;
/** How long a preview may wait for its approval (and its token be fetched) before the agent must preview again. */
const PREVIEW_TTL_MS = 24 * 3_600_000;

export interface PreviewInput extends Omit<BeginCall, "projectId"> {
  summary: string;
  affected: string[];
}

/** A preview as its asker sees it: with a fresh token whenever one may be used. */
export interface PreviewView {
  preview: PreviewRow;
  token: string | null;
}


/**
 * Previews of destructive calls: stores the dry run's summary, releases a single-use token bound to
 * the call's key and args fingerprint (at once under `required`, after an operator's approval under
 * `approve`), and spends it on the begin that executes.
 */
export class PreviewService implements PreviewGate {
  constructor(
    private readonly repo: PreviewRepository,
    private readonly gate: GateService,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The call's preview. Under `approve` the same call (same key, same args) finds its own standing
   * preview — pending, approved (with a fresh token) or denied — instead of filing another, so an
   * asker that timed out waiting and calls again after the approval runs on that approval, and the
   * inbox holds one entry per call; only a preview that ran or expired makes room for a new one.
   * Under `required` (no human) each dry run is its own preview, ready at once.
   */
  async create(projectId: string, input: PreviewInput, actor: Actor): Promise<PreviewView> {
    const { policy, call } = await this.gate.prepareFor(projectId, input);
    const now = this.clock();
    const standing = policy.policy.preview === "approve" ? await this.repo.findStanding(projectId, call.key, call.argsFingerprint, now) : null;
    if (standing) return this.withToken(standing, now);
    const mode = policy.policy.preview === "approve" ? "approve" : "required";
    const row: PreviewRow = {
      id: newId("prv", now),
      projectId,
      key: call.key,
      argsFingerprint: call.argsFingerprint,
      tool: call.tool,
      runId: call.runId,
      args: call.argsText,
      summary: input.summary,
      affected: input.affected,
      mode,
      status: mode === "approve" ? "pending" : "ready",
      requestedBy: actor.id ?? "agent",
      decidedBy: null,
      decisionNote: null,
      decidedAt: null,
      tokenExpiresAt: null,
      usedAt: null,
      createdAt: now,
      expiresAt: now + PREVIEW_TTL_MS,
      version: 0,
    };
    const minted = mode === "required" ? mintToken() : null;
    if (minted) row.tokenExpiresAt = now + TOKEN_TTL_MS;
    await this.repo.create(row, minted?.hash ?? null);
    return { preview: row, token: minted?.token ?? null };
  }

  /** The asker's poll: once the preview may run, each read hands out a fresh token (replacing the last). */
  async read(projectId: string, id: string): Promise<PreviewView> {
    return this.withToken(await this.getOrThrow(projectId, id), this.clock());
  }

  private async withToken(preview: PreviewRow, now: number): Promise<PreviewView> {
    if (!mayIssueToken(preview, now)) return { preview, token: null };
    const minted = mintToken();
    if (!(await this.repo.issueToken(preview, minted.hash, now + TOKEN_TTL_MS))) {
      throw new AppError("contention", "the preview changed while reading it; read again", { retryAfterSeconds: 1 });
    }
    return { preview: { ...preview, tokenExpiresAt: now + TOKEN_TTL_MS, version: preview.version + 1 }, token: minted.token };
  }

  async redeem(projectId: string, token: string, call: { key: string; argsFingerprint: string }): Promise<void> {
    const preview = await this.repo.byTokenHash(projectId, sha256Hex(token));
    const check = checkPreviewToken(preview, call, this.clock());
    if (!check.ok) throw new AppError(check.code, check.message);
    if (!(await this.repo.markUsed(preview!, this.clock()))) throw new AppError("preview_token_used", "the preview token already ran once: preview again");
  }

  list(projectId: string, status: PreviewStatus | undefined, limit: number): Promise<PreviewRow[]> {
    return this.repo.list(projectId, status, limit);
  }

  async decide(projectId: string, id: string, approve: boolean, note: string, actor: Actor): Promise<PreviewRow> {
    const preview = await this.getOrThrow(projectId, id);
    const now = this.clock();
    const verdict = decidePreview(preview, approve, actor.id, now);
    if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
    const by = actor.label ?? actor.id ?? "operator";
    const detail = { tool: preview.tool, key: preview.key, summary: preview.summary, note };
    const audit = auditEntry(actor, projectId, `preview.${verdict.status}`, { type: "preview", id }, detail, now);
    if (!(await this.repo.decide(preview, verdict.status, by, note, now, audit))) {
      throw new AppError("already_decided", `preview ${id} was decided meanwhile`);
    }
    return { ...preview, status: verdict.status, decidedBy: by, decisionNote: note, decidedAt: now, version: preview.version + 1 };
  }

  private async getOrThrow(projectId: string, id: string): Promise<PreviewRow> {
    const preview = await this.repo.get(projectId, id);
    if (!preview) throw new AppError("not_found", `no preview ${id} in this project`);
    return preview;
  }
}

function mintToken(): { token: string; hash: string } {
  const token = `${PREVIEW_TOKEN_PREFIX}${newSecret(32)}`;
  return { token, hash: sha256Hex(token) };
}
