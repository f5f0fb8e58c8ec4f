import type Database from "better-sqlite3";
import type { CallRecord } from "../core/record";
import { eventValues, recordValues, rowToApiKey } from "./columns";
import { OPERATOR_SQL as Q, auditValues, resendValues, rowToAudit, rowToMember, rowToResend, rowToUser } from "./operator-statements";
import type {
  AuditEntryRow,
  MemberRole,
  MemberRow,
  OperatorStore,
  Page,
  ResendDecision,
  ResendRequestRow,
  ResendStatus,
  UserRow,
} from "./operator-types";
import { SQL, toSqliteParams } from "./statements";
import { type ApiKeyRow, type GateEvent, StoreUnavailableError } from "./types";

type Row = Record<string, unknown>;
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

/**
 * The operator store on SQLite. Every method runs synchronously on the connection, transactions
 * included: nothing here holds a lock across an await, which matters because better-auth shares
 * this connection and the gate store's connection waits for locks synchronously.
 */
export class SqliteOperatorStore implements OperatorStore {
  readonly provider = "sqlite" as const;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(toSqliteParams(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private bind(values: unknown[]): Record<number, unknown> {
    const bound: Record<number, unknown> = {};
    values.forEach((value, i) => (bound[i + 1] = typeof value === "boolean" ? Number(value) : value));
    return bound;
  }

  private run(sql: string, values: unknown[]): number {
    return this.stmt(sql).run(this.bind(values)).changes;
  }

  private get(sql: string, values: unknown[]): Row | undefined {
    return this.stmt(sql).get(this.bind(values)) as Row | undefined;
  }

  private all(sql: string, values: unknown[]): Row[] {
    return this.stmt(sql).all(this.bind(values)) as Row[];
  }

  private guard<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === "string" && UNAVAILABLE.test(code)) return Promise.reject(new StoreUnavailableError(error));
      return Promise.reject(error);
    }
  }

  /** `change` and, only if it changed a row, the audit entry: one immediate transaction. */
  private audited(change: () => number, audit: AuditEntryRow): Promise<boolean> {
    return this.guard(() =>
      this.db
        .transaction(() => {
          if (change() === 0) return false;
          this.run(Q.insertAudit, auditValues(audit));
          return true;
        })
        .immediate(),
    );
  }

  findUserById(id: string): Promise<UserRow | null> {
    return this.guard(() => {
      const row = this.get(Q.userById, [id]);
      return row ? rowToUser(row) : null;
    });
  }

  findUserByEmail(email: string): Promise<UserRow | null> {
    return this.guard(() => {
      const row = this.get(Q.userByEmail, [email]);
      return row ? rowToUser(row) : null;
    });
  }

  countUsers(): Promise<number> {
    return this.guard(() => Number(this.get(Q.countUsers, [])!.n));
  }

  setInstanceAdmin(userId: string): Promise<void> {
    return this.guard(() => void this.run(Q.setInstanceAdmin, [userId]));
  }

  findMember(projectId: string, userId: string): Promise<MemberRow | null> {
    return this.guard(() => {
      const row = this.get(Q.member, [projectId, userId]);
      return row ? rowToMember(row) : null;
    });
  }

  listMembers(projectId: string): Promise<MemberRow[]> {
    return this.guard(() => this.all(Q.members, [projectId]).map(rowToMember));
  }

  listMemberships(userId: string): Promise<{ projectId: string; role: MemberRole }[]> {
    return this.guard(() => this.all(Q.memberships, [userId]).map((row) => ({ projectId: String(row.project_id), role: String(row.role) as MemberRole })));
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

  findResendRequest(projectId: string, id: string): Promise<ResendRequestRow | null> {
    return this.guard(() => {
      const row = this.get(Q.resendById, [projectId, id]);
      return row ? rowToResend(row) : null;
    });
  }

  findResendRequestByTokenHash(projectId: string, tokenHash: string): Promise<ResendRequestRow | null> {
    return this.guard(() => {
      const row = this.get(Q.resendByToken, [projectId, tokenHash]);
      return row ? rowToResend(row) : null;
    });
  }

  findOpenResendRequest(projectId: string, key: string, argsFingerprint: string, requesterId: string, now: number): Promise<ResendRequestRow | null> {
    return this.guard(() => {
      const row = this.get(Q.openResend, [projectId, key, argsFingerprint, requesterId, now]);
      return row ? rowToResend(row) : null;
    });
  }

  listResendRequests(projectId: string, status: ResendStatus | null, page: Page): Promise<ResendRequestRow[]> {
    return this.guard(() => this.all(Q.resends, [projectId, status, page.before ?? null, page.limit]).map(rowToResend));
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

  setResendUsedCall(projectId: string, id: string, callId: string): Promise<void> {
    return this.guard(() => void this.run(Q.setUsedCall, [projectId, id, callId]));
  }

  appendAudit(entry: AuditEntryRow): Promise<void> {
    return this.guard(() => void this.run(Q.insertAudit, auditValues(entry)));
  }

  listAudit(projectId: string, page: Page): Promise<AuditEntryRow[]> {
    return this.guard(() => this.all(Q.audit, [projectId, page.before ?? null, page.limit]).map(rowToAudit));
  }

  listApiKeys(projectId: string): Promise<ApiKeyRow[]> {
    return this.guard(() => this.all(Q.apiKeys, [projectId]).map(rowToApiKey));
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
