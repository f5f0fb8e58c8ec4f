import type pg from "pg";
import type { CallRecord } from "../../../core/record";
import { OperatorStoreBase } from "../shared/operator-store-base";
import type { OperatorRepository } from "../../prisma/operator-repository";
import { eventValues, recordValues } from "../../hot/shared/columns";
import { auditListStatement } from "../shared/audit-list-statements";
import {
  OPERATOR_SQL as Q,
  rowToAudit,
  PG_RECORD_BY_OPERATOR,
  auditValues,
  pgWithAudit,
  resendValues,
} from "../shared/operator-statements";
import type { AuditEntryRow, AuditFilter, MemberRole, OperatorStore, Page, ResendDecision, ResendRequestRow } from "../../ports/operator-store";
import { type ApiKeyRow, type GateEvent, StoreUnavailableError } from "../../ports/gate-store";
import { isPgUnavailable } from "../../connection/pg-errors";

type Row = Record<string, unknown>;

/**
 * The operator store on Postgres: each change and its audit entry travel as one statement (a
 * data-modifying CTE), so the audit row exists exactly when the change applied.
 */
export class PostgresOperatorStore extends OperatorStoreBase implements OperatorStore {
  readonly provider = "postgres" as const;

  constructor(
    private readonly pool: pg.Pool,
    repository: OperatorRepository,
  ) {
    super(repository);
  }

  protected async rows(text: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.pool.query(text, values)).rows;
    } catch (error) {
      if (isPgUnavailable(error)) throw new StoreUnavailableError(error);
      throw error;
    }
  }


  private async audited(change: string, values: unknown[], audit: AuditEntryRow): Promise<boolean> {
    const rows = await this.rows(pgWithAudit(change, values.length + 1), [...values, ...auditValues(audit)]);
    return rows.length === 1;
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

  /** The filtered audit page stays SQL: its prefix match by substr is case-sensitive on both providers, unlike Prisma's startsWith (LIKE on SQLite). */
  async listAudit(projectId: string, page: Page, filter?: AuditFilter): Promise<AuditEntryRow[]> {
    const { sql, values } = auditListStatement(projectId, page, filter);
    return (await this.rows(sql, values)).map(rowToAudit);
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
