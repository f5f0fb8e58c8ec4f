import type { OperatorPreview, PreviewWire } from "../contract/previews";
import type { PreviewInput, PreviewView } from "../server/multistep/preview-service";
import type { PreviewRow } from "../store/prisma/preview-repository";
import { toBeginInput } from "./wire";
import type { z } from "zod";
import type { CreatePreviewRequestSchema } from "../contract/previews";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

function common(p: PreviewRow) {
  return {
    previewId: p.id,
    status: p.status,
    mode: p.mode,
    key: p.key,
    argsFingerprint: p.argsFingerprint,
    tool: p.tool,
    runId: p.runId,
    summary: p.summary,
    affected: p.affected,
    expiresAt: iso(p.expiresAt),
    decisionNote: p.decisionNote,
  };
}

export function toWirePreview(view: PreviewView): PreviewWire {
  return {
    ...common(view.preview),
    ...(view.token !== null ? { previewToken: view.token, tokenExpiresAt: iso(view.preview.tokenExpiresAt!) } : {}),
  };
}

/** `keyNames`: the project's API key names by id (api-key-names.ts), so the card names the key that asked. */
export function toOperatorPreview(p: PreviewRow, keyNames: ReadonlyMap<string, string>): OperatorPreview {
  return {
    ...common(p),
    args: p.args === null ? null : (JSON.parse(p.args) as unknown),
    requestedBy: p.requestedBy,
    requestedByName: keyNames.get(p.requestedBy) ?? null,
    decidedBy: p.decidedBy,
    decidedAt: isoOrNull(p.decidedAt),
    createdAt: iso(p.createdAt),
    usedAt: isoOrNull(p.usedAt),
  };
}

export function toPreviewInput(body: z.infer<typeof CreatePreviewRequestSchema>): PreviewInput {
  const { tool, runId, stepId, scope, toolCallId, agentId, args } = toBeginInput(body);
  return { tool, runId, stepId, scope, toolCallId, agentId, args, summary: body.preview.summary, affected: body.preview.affected };
}
