import type pg from "pg";
import type { CallRecord } from "../../../core/record";
import { auditListStatement } from "../shared/audit-list-statements";
import { CallListReads } from "../shared/call-list-statements";
import { eventValues, recordValues, rowToApiKey } from "../../hot/shared/columns";
import {
  OPERATOR_SQL as Q,
  PG_RECORD_BY_OPERATOR,
  auditValues,
  pgWithAudit,
  resendValues,
  rowToAudit,
  rowToMember,
  rowToResend,
  rowToUser,
} from "../shared/operator-statements";
import type {
  AuditEntryRow,
  MemberRole,
  MemberRow,
  OperatorStore,
  AuditFilter,
  Page,
  ResendDecision,
  ResendRequestRow,
  ResendStatus,
  UserRow,
} from "../../ports/operator-store";
import { type ApiKeyRow, type GateEvent, StoreUnavailableError } from "../../ports/gate-store";
import { isPgUnavailable } from "../../connection/pg-errors";

type Row = Record<string, unknown>;

/**
 * The operator store on Postgres: each change and its audit entry travel as one statement (a
 * data-modifying CTE), so the audit row exists exactly when the change applied.
 */
export class PostgresOperatorStore extends CallListReads implements OperatorStore {
  readonly provider = "postgres" as const;

  constructor(private readonly pool: pg.Pool) {
    super();
  }

  protected async rows(text: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.pool.query(text, values)).rows;
    } catch (error) {
      if (isPgUnavailable(error)) throw new StoreUnavailableError(error);
      throw error;
    }
  }

  private async one(text: string, values: unknown[]): Promise<Row | null> {
    return (await this.rows(text, values))[0] ?? null;
  }

  private async audited(change: string, values: unknown[], audit: AuditEntryRow): Promise<boolean> {
    const rows = await this.rows(pgWithAudit(change, values.length + 1), [...values, ...auditValues(audit)]);
    return rows.length === 1;
  }

  async findUserById(id: string): Promise<UserRow | null> {
    const row = await this.one(Q.userById, [id]);
    return row ? rowToUser(row) : null;
  }

  async findUserByEmail(email: string): Promise<UserRow | null> {
    const row = await this.one(Q.userByEmail, [email]);
    return row ? rowToUser(row) : null;
  }

  async countUsers(): Promise<number> {
    return Number((await this.one(Q.countUsers, []))!.n);
  }

  async setInstanceAdmin(userId: string): Promise<void> {
    await this.rows(Q.setInstanceAdmin, [userId]);
  }

  async findMember(projectId: string, userId: string): Promise<MemberRow | null> {
    const row = await this.one(Q.member, [projectId, userId]);
    return row ? rowToMember(row) : null;
  }

  async listMembers(projectId: string): Promise<MemberRow[]> {
    return (await this.rows(Q.members, [projectId])).map(rowToMember);
  }

  async listMemberships(userId: string): Promise<{ projectId: string; role: MemberRole }[]> {
    return (await this.rows(Q.memberships, [userId])).map((row) => ({ projectId: String(row.project_id), role: String(row.role) as MemberRole }));
  }

  async putMember(projectId: string, userId: string, role: MemberRole, at: number, audit: AuditEntryRow): Promise<void> {
    await this.audited(Q.putMember, [projectId, userId, role, at], audit);
  }

  removeMember(projectId: string, userId: string, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(Q.removeMember, [projectId, userId], audit);
  }

  async insertResendRequest(row: ResendRequestRow, audit: AuditEntryRow): Promise<void> {
    await this.audited(Q.insertResend, resendValues(row), audit);
  }

  async findResendRequest(projectId: string, id: string): Promise<ResendRequestRow | null> {
    const row = await this.one(Q.resendById, [projectId, id]);
    return row ? rowToResend(row) : null;
  }

  async findResendRequestByTokenHash(projectId: string, tokenHash: string): Promise<ResendRequestRow | null> {
    const row = await this.one(Q.resendByToken, [projectId, tokenHash]);
    return row ? rowToResend(row) : null;
  }

  async findOpenResendRequest(projectId: string, key: string, argsFingerprint: string, requesterId: string, now: number): Promise<ResendRequestRow | null> {
    const row = await this.one(Q.openResend, [projectId, key, argsFingerprint, requesterId, now]);
    return row ? rowToResend(row) : null;
  }

  async listResendRequests(projectId: string, status: ResendStatus | null, page: Page): Promise<ResendRequestRow[]> {
    return (await this.rows(Q.resends, [projectId, status, page.before ?? null, page.limit])).map(rowToResend);
  }

  decideResendRequest(projectId: string, id: string, d: ResendDecision, audit: AuditEntryRow): Promise<boolean> {
    const values = [projectId, id, d.status, d.deciderType, d.deciderId, d.deciderLabel, d.note, d.decidedAt, d.expiresAt];
    return this.audited(Q.decideResend, values, audit);
  }

  issueResendToken(projectId: string, id: string, tokenHash: string, issuedTo: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(Q.issueToken, [projectId, id, tokenHash, issuedTo, at], audit);
  }

  consumeResendToken(projectId: string, id: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(Q.consumeToken, [projectId, id, at], audit);
  }

  async setResendUsedCall(projectId: string, id: string, callId: string): Promise<void> {
    await this.rows(Q.setUsedCall, [projectId, id, callId]);
  }

  async appendAudit(entry: AuditEntryRow): Promise<void> {
    await this.rows(Q.insertAudit, auditValues(entry));
  }

  async listAudit(projectId: string, page: Page, filter?: AuditFilter): Promise<AuditEntryRow[]> {
    const { sql, values } = auditListStatement(projectId, page, filter);
    return (await this.rows(sql, values)).map(rowToAudit);
  }

  async listApiKeys(projectId: string): Promise<ApiKeyRow[]> {
    return (await this.rows(Q.apiKeys, [projectId])).map(rowToApiKey);
  }

  async createApiKey(row: ApiKeyRow, audit: AuditEntryRow): Promise<void> {
    await this.audited(Q.insertApiKey, [row.id, row.projectId, row.name, row.prefix, row.hash, row.createdAt], audit);
  }

  revokeApiKey(projectId: string, keyId: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(Q.revokeApiKey, [projectId, keyId, at], audit);
  }

  async updateRecordByOperator(record: CallRecord, expectedVersion: number, event: GateEvent, audit: AuditEntryRow): Promise<boolean> {
    const values = [...recordValues(record), expectedVersion, ...eventValues(event), ...auditValues(audit)];
    return (await this.rows(PG_RECORD_BY_OPERATOR, values)).length === 1;
  }

  async close(): Promise<void> {
    // The pool belongs to operator-db.ts, which closes it with better-auth's handle.
  }
}
