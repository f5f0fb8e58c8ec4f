import type { OperatorResendRequest } from "../contract/operator";
import type { ResendRequestWire } from "../contract/resends";
import { redactAuditDetail } from "../core/url-credentials";
import type { AuditEntryRow, MemberRow, ResendRequestRow } from "../store/ports/operator-store";
import type { ApiKeyRow } from "../store/ports/gate-store";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** Stored status plus time: a request past its expiry is expired, a used token's request is used. */
export function resendStatus(row: ResendRequestRow, now: number): ResendRequestWire["status"] {
  if (row.status === "denied") return "denied";
  if (row.usedAt !== null) return "used";
  if (row.expiresAt <= now) return "expired";
  return row.status;
}

/** The agent's view; `token` only in the one answer that minted it. */
export function toWireResend(row: ResendRequestRow, now: number, token?: string): ResendRequestWire {
  return {
    requestId: row.id,
    callId: row.callId,
    tool: row.tool,
    status: resendStatus(row, now),
    reason: row.reason,
    requestedAt: iso(row.createdAt),
    decidedAt: isoOrNull(row.decidedAt),
    note: row.note,
    expiresAt: iso(row.expiresAt),
    tokenIssued: row.tokenHash !== null,
    ...(token ? { bypassToken: token } : {}),
  };
}

/** API key ids → names, so an agent shows as "billing-agent", not as `key_0mwv…`. */
export type KeyNames = ReadonlyMap<string, string>;

export function toOperatorResend(row: ResendRequestRow, now: number, keyNames: KeyNames = new Map()): OperatorResendRequest {
  return {
    ...toWireResend(row, now),
    key: row.key,
    argsFingerprint: row.argsFingerprint,
    args: row.args === null ? null : JSON.parse(row.args),
    requestedBy: { type: row.requesterType, id: row.requesterId, label: row.requesterLabel, name: keyNameOf(row.requesterType, row.requesterId, keyNames) },
    decidedBy: row.deciderType ? { type: row.deciderType, id: row.deciderId, label: row.deciderLabel } : null,
    tokenIssuedAt: isoOrNull(row.tokenIssuedAt),
    usedAt: isoOrNull(row.usedAt),
    usedCallId: row.usedCallId,
  };
}

export function toWireApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: iso(row.createdAt),
    lastUsedAt: isoOrNull(row.lastUsedAt),
    revokedAt: isoOrNull(row.revokedAt),
  };
}

export function toWireMember(row: MemberRow) {
  return { userId: row.userId, email: row.email, name: row.name, role: row.role, createdAt: iso(row.createdAt) };
}

const keyNameOf = (type: string, id: string | null, keyNames: KeyNames): string | null => (type === "agent" && id !== null ? (keyNames.get(id) ?? null) : null);

export function toWireAudit(row: AuditEntryRow, keyNames: KeyNames = new Map()) {
  return {
    id: row.id,
    at: iso(row.at),
    actor: { type: row.actorType, id: row.actorId, label: row.actorLabel, name: keyNameOf(row.actorType, row.actorId, keyNames) },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    // Redacted on the way out: audit rows are append-only, and older ones may hold a URL's userinfo or a webhook's path.
    detail: row.detail === null ? null : redactAuditDetail(row.action, JSON.parse(row.detail)),
    ip: row.ip,
    userAgent: row.userAgent,
  };
}
