import { EVENT_COLUMNS, EVENT_COLUMN_LIST, RECORD_COLUMNS, num, placeholders, strOrNull } from "../../hot/shared/columns";
import type { AuditEntryRow, ResendRequestRow } from "../../ports/operator-store";
import { SQL } from "../../hot/shared/statements";

/**
 * The operator store's audited changes, written once with numbered placeholders for both providers
 * (as in hot/shared/statements.ts). Postgres folds a change and its audit entry into one statement;
 * SQLite runs the same two statements in one immediate transaction. Reads are Prisma Client
 * (lib/store/prisma/operator-repository.ts).
 */
type Column<T> = readonly [column: string, field: keyof T, pgType: string];

export const RESEND_COLUMNS: readonly Column<ResendRequestRow>[] = [
  ["id", "id", "text"],
  ["project_id", "projectId", "text"],
  ["call_id", "callId", "text"],
  ["tool", "tool", "text"],
  ["key", "key", "text"],
  ["args_fingerprint", "argsFingerprint", "text"],
  ["args", "args", "text"],
  ["reason", "reason", "text"],
  ["requester_type", "requesterType", "text"],
  ["requester_id", "requesterId", "text"],
  ["requester_label", "requesterLabel", "text"],
  ["status", "status", "text"],
  ["decider_type", "deciderType", "text"],
  ["decider_id", "deciderId", "text"],
  ["decider_label", "deciderLabel", "text"],
  ["note", "note", "text"],
  ["decided_at", "decidedAt", "bigint"],
  ["expires_at", "expiresAt", "bigint"],
  ["token_hash", "tokenHash", "text"],
  ["token_issued_at", "tokenIssuedAt", "bigint"],
  ["token_issued_to", "tokenIssuedTo", "text"],
  ["used_at", "usedAt", "bigint"],
  ["used_call_id", "usedCallId", "text"],
  ["created_at", "createdAt", "bigint"],
];

export const AUDIT_COLUMNS: readonly Column<AuditEntryRow>[] = [
  ["id", "id", "text"],
  ["project_id", "projectId", "text"],
  ["at", "at", "bigint"],
  ["actor_type", "actorType", "text"],
  ["actor_id", "actorId", "text"],
  ["actor_label", "actorLabel", "text"],
  ["action", "action", "text"],
  ["target_type", "targetType", "text"],
  ["target_id", "targetId", "text"],
  ["detail", "detail", "text"],
  ["ip", "ip", "text"],
  ["user_agent", "userAgent", "text"],
];

const list = <T>(columns: readonly Column<T>[]) => columns.map(([c]) => `"${c}"`).join(", ");
const RESEND_LIST = list(RESEND_COLUMNS);
export const AUDIT_LIST = list(AUDIT_COLUMNS);

export const OPERATOR_SQL = {
  putMember: `INSERT INTO project_members (project_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role`,
  removeMember: `DELETE FROM project_members WHERE project_id = $1 AND user_id = $2`,

  insertResend: `INSERT INTO resend_requests (${RESEND_LIST}) VALUES (${placeholders(RESEND_COLUMNS, 1, false)})`,
  /** Params: project, id, status, decider type/id/label, note, decided at, expires at. */
  decideResend: `UPDATE resend_requests SET status = $3, decider_type = $4, decider_id = $5, decider_label = $6, note = $7, decided_at = $8, expires_at = $9 WHERE project_id = $1 AND id = $2 AND status = 'pending' AND expires_at > $8`,
  issueToken: `UPDATE resend_requests SET token_hash = $3, token_issued_to = $4, token_issued_at = $5 WHERE project_id = $1 AND id = $2 AND status = 'approved' AND token_hash IS NULL AND used_at IS NULL AND expires_at > $5`,
  consumeToken: `UPDATE resend_requests SET used_at = $3 WHERE project_id = $1 AND id = $2 AND status = 'approved' AND used_at IS NULL AND expires_at > $3`,

  insertAudit: `INSERT INTO audit_log (${AUDIT_LIST}) VALUES (${placeholders(AUDIT_COLUMNS, 1, false)})`,

  insertApiKey: SQL.insertApiKey,
  revokeApiKey: `UPDATE api_keys SET revoked_at = $3 WHERE project_id = $1 AND id = $2 AND revoked_at IS NULL`,
};

/** Postgres: `change` (a single-row INSERT/UPDATE/DELETE) and, only if it applied, its audit entry. */
export function pgWithAudit(change: string, auditFrom: number): string {
  return `WITH changed AS (${change} RETURNING 1) INSERT INTO audit_log (${AUDIT_LIST}) SELECT ${placeholders(AUDIT_COLUMNS, auditFrom, true)} FROM changed RETURNING 1`;
}

const R = RECORD_COLUMNS.length;
/** Postgres: a record's CAS, its event and the operator's audit entry in one statement. */
export const PG_RECORD_BY_OPERATOR = `WITH changed AS (${SQL.updateRecord} RETURNING 1), event AS (INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT ${placeholders(EVENT_COLUMNS, R + 2, true)} FROM changed RETURNING 1) INSERT INTO audit_log (${AUDIT_LIST}) SELECT ${placeholders(AUDIT_COLUMNS, R + 2 + EVENT_COLUMNS.length, true)} FROM changed RETURNING 1`;

export const resendValues = (row: ResendRequestRow): unknown[] => RESEND_COLUMNS.map(([, field]) => row[field]);
export const auditValues = (row: AuditEntryRow): unknown[] => AUDIT_COLUMNS.map(([, field]) => row[field]);

type Row = Record<string, unknown>;

export function rowToAudit(row: Row): AuditEntryRow {
  return {
    id: String(row.id),
    projectId: strOrNull(row.project_id),
    at: num(row.at),
    actorType: String(row.actor_type) as AuditEntryRow["actorType"],
    actorId: strOrNull(row.actor_id),
    actorLabel: strOrNull(row.actor_label),
    action: String(row.action),
    targetType: String(row.target_type),
    targetId: String(row.target_id),
    detail: strOrNull(row.detail),
    ip: strOrNull(row.ip),
    userAgent: strOrNull(row.user_agent),
  };
}
