import type Database from "better-sqlite3";
import type { CallRecord } from "../../../core/record";
import { OperatorStoreBase } from "../shared/operator-store-base";
import type { OperatorRepository } from "../../prisma/operator-repository";
import { eventValues, recordValues } from "../../hot/shared/columns";
import { OPERATOR_SQL as Q, auditValues, resendValues, rowToAudit } from "../shared/operator-statements";
import { auditListStatement } from "../shared/audit-list-statements";
import type { AuditEntryRow, AuditFilter, MemberRole, OperatorStore, Page, ResendDecision, ResendRequestRow } from "../../ports/operator-store";
import { SqliteStatements } from "../../connection/sqlite-connection";
import { SQL } from "../../hot/shared/statements";
import type { ApiKeyRow, GateEvent } from "../../ports/gate-store";

type Row = Record<string, unknown>;

/**
 * The operator store on SQLite. Every method runs synchronously on the connection, transactions
 * included: nothing here holds a lock across an await, which matters because better-auth shares
 * this connection and the gate store's connection waits for locks synchronously.
 */
export class SqliteOperatorStore extends OperatorStoreBase implements OperatorStore {
  readonly provider = "sqlite" as const;
  private readonly sql: SqliteStatements;

  constructor(db: Database.Database, repository: OperatorRepository) {
    super(repository);
    this.sql = new SqliteStatements(db);
  }

  protected rows(sql: string, values: unknown[]): Promise<Row[]> {
    return this.sql.guard(() => this.sql.all(sql, values));
  }

  private run(sql: string, values: unknown[]): number {
    return this.sql.run(sql, values).changes;
  }

  /** `change` and, only if it changed a row, the audit entry: one immediate transaction. */
  private audited(change: () => number, audit: AuditEntryRow): Promise<boolean> {
    return this.sql.immediate(() => {
      if (change() === 0) return false;
      this.run(Q.insertAudit, auditValues(audit));
      return true;
    });
  }

  async putMember(projectId: string, userId: string, role: MemberRole, at: number, audit: AuditEntryRow): Promise<void> {
    await this.audited(() => this.run(Q.putMember, [projectId, userId, role, at]), audit);
  }

  removeMember(projectId: string, userId: string, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(() => this.run(Q.removeMember, [projectId, userId]), audit);
  }

  async insertResendRequest(row: ResendRequestRow, audit: AuditEntryRow): Promise<void> {
    await this.audited(() => this.run(Q.insertResend, resendValues(row)), audit);
  }

  decideResendRequest(projectId: string, id: string, d: ResendDecision, audit: AuditEntryRow): Promise<boolean> {
    const values = [projectId, id, d.status, d.deciderType, d.deciderId, d.deciderLabel, d.note, d.decidedAt, d.expiresAt];
    return this.audited(() => this.run(Q.decideResend, values), audit);
  }

  issueResendToken(projectId: string, id: string, tokenHash: string, issuedTo: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(() => this.run(Q.issueToken, [projectId, id, tokenHash, issuedTo, at]), audit);
  }

  consumeResendToken(projectId: string, id: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(() => this.run(Q.consumeToken, [projectId, id, at]), audit);
  }

  /** The filtered audit page stays SQL: its prefix match by substr is case-sensitive on both providers, unlike Prisma's startsWith (LIKE on SQLite). */
  listAudit(projectId: string, page: Page, filter?: AuditFilter): Promise<AuditEntryRow[]> {
    const { sql, values } = auditListStatement(projectId, page, filter);
    return this.sql.guard(() => this.sql.all(sql, values).map(rowToAudit));
  }

  async createApiKey(row: ApiKeyRow, audit: AuditEntryRow): Promise<void> {
    const values = [row.id, row.projectId, row.name, row.prefix, row.hash, row.createdAt];
    await this.audited(() => this.run(Q.insertApiKey, values), audit);
  }

  revokeApiKey(projectId: string, keyId: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(() => this.run(Q.revokeApiKey, [projectId, keyId, at]), audit);
  }

  updateRecordByOperator(record: CallRecord, expectedVersion: number, event: GateEvent, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(() => {
      if (this.run(SQL.updateRecord, [...recordValues(record), expectedVersion]) === 0) return 0;
      return this.run(SQL.insertEvent, eventValues(event));
    }, audit);
  }

  async close(): Promise<void> {
    // The connection belongs to operator-db.ts, which closes it with better-auth's handle.
  }
}
