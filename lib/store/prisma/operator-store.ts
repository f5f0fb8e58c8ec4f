import type { CallRecord } from "../../core/record";
import type { ApiKey, Prisma, ResendRequest } from "../generated/sqlite/client";
import type { ApiKeyRow, GateEvent } from "../ports/gate-store";
import type {
  AuditEntryRow,
  AuditFilter,
  MemberRole,
  MemberRow,
  OperatorStore,
  Page,
  ResendDecision,
  ResendRequestRow,
  ResendStatus,
  UserRow,
} from "../ports/operator-store";
import { auditListStatement, rowToAudit } from "../sql/shared/audit-list-statements";
import { CallListReads } from "../sql/shared/call-list-statements";
import { type Db, TRANSACTION_LIMITS, providerOf, queryRows } from "./client";
import { guardDb, numOrNull } from "./db-errors";
import { recordChanges, toStoredEvent } from "./stored-rows";

const USER = { id: true, email: true, name: true, instanceAdmin: true } as const;
const MEMBER = { projectId: true, userId: true, role: true, createdAt: true, user: { select: { email: true, name: true } } } as const;

/** A change inside an audited transaction: how many rows it changed (0 = it did not apply). */
type Change = (tx: Prisma.TransactionClient) => Promise<number>;

/**
 * The operator store, one implementation for both providers over Prisma Client (see client.ts):
 * users, members, resend requests, the audit log and API keys. Every state change is conditional
 * (an updateMany/deleteMany whose where clause is the precondition) and commits together with its
 * audit entry in one Prisma transaction, written only when the change applied.
 *
 * The explorer's lists (call-list-statements.ts) and the filtered audit page stay SQL text, run
 * through the same client ($queryRawUnsafe): their EXISTS/NOT EXISTS seeks, per-row subqueries and
 * collation-independent prefix matches have no Prisma Client form.
 */
export class PrismaOperatorStore extends CallListReads implements OperatorStore {
  readonly provider: "sqlite" | "postgres";

  constructor(private readonly db: Db) {
    super();
    this.provider = providerOf(db);
  }

  protected rows(sql: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    return guardDb(() => queryRows(this.db, sql, values));
  }

  /** `change` and, only if it applied, its audit entry: one transaction. */
  private audited(change: Change, audit: AuditEntryRow): Promise<boolean> {
    return guardDb(() =>
      this.db.$transaction(async (tx) => {
        if ((await change(tx)) === 0) return false;
        await tx.auditEntry.create({ data: audit });
        return true;
      }, TRANSACTION_LIMITS),
    );
  }

  findUserById(id: string): Promise<UserRow | null> {
    return guardDb(() => this.db.user.findUnique({ where: { id }, select: USER }));
  }

  findUserByEmail(email: string): Promise<UserRow | null> {
    return guardDb(() => this.db.user.findUnique({ where: { email }, select: USER }));
  }

  countUsers(): Promise<number> {
    return guardDb(() => this.db.user.count());
  }

  async setInstanceAdmin(userId: string): Promise<void> {
    await guardDb(() => this.db.user.updateMany({ where: { id: userId }, data: { instanceAdmin: true } }));
  }

  findMember(projectId: string, userId: string): Promise<MemberRow | null> {
    return guardDb(async () => {
      const row = await this.db.projectMember.findUnique({ where: { projectId_userId: { projectId, userId } }, select: MEMBER });
      return row ? toMemberRow(row) : null;
    });
  }

  listMembers(projectId: string): Promise<MemberRow[]> {
    return guardDb(async () =>
      (await this.db.projectMember.findMany({ where: { projectId }, select: MEMBER, orderBy: { user: { email: "asc" } } })).map(toMemberRow),
    );
  }

  listMemberships(userId: string): Promise<{ projectId: string; role: MemberRole }[]> {
    return guardDb(async () =>
      (await this.db.projectMember.findMany({ where: { userId }, select: { projectId: true, role: true }, orderBy: { projectId: "asc" } })).map(
        (row) => ({ projectId: row.projectId, role: row.role as MemberRole }),
      ),
    );
  }

  findResendRequest(projectId: string, id: string): Promise<ResendRequestRow | null> {
    return guardDb(async () => {
      const row = await this.db.resendRequest.findFirst({ where: { projectId, id } });
      return row ? toResendRow(row) : null;
    });
  }

  findResendRequestByTokenHash(projectId: string, tokenHash: string): Promise<ResendRequestRow | null> {
    return guardDb(async () => {
      const row = await this.db.resendRequest.findFirst({ where: { projectId, tokenHash } });
      return row ? toResendRow(row) : null;
    });
  }

  /** Pending, or approved and not yet used: a request the same asker should be pointed back to. */
  findOpenResendRequest(projectId: string, key: string, argsFingerprint: string, requesterId: string, now: number): Promise<ResendRequestRow | null> {
    return guardDb(async () => {
      const row = await this.db.resendRequest.findFirst({
        where: {
          projectId,
          key,
          argsFingerprint,
          requesterId,
          expiresAt: { gt: BigInt(now) },
          OR: [{ status: "pending" }, { status: "approved", usedAt: null }],
        },
        orderBy: { id: "desc" },
      });
      return row ? toResendRow(row) : null;
    });
  }

  listResendRequests(projectId: string, status: ResendStatus | null, page: Page): Promise<ResendRequestRow[]> {
    return guardDb(async () =>
      (
        await this.db.resendRequest.findMany({
          where: { projectId, ...(status ? { status } : {}), ...(page.before ? { id: { lt: page.before } } : {}) },
          orderBy: { id: "desc" },
          take: page.limit,
        })
      ).map(toResendRow),
    );
  }

  async setResendUsedCall(projectId: string, id: string, callId: string): Promise<void> {
    await guardDb(() => this.db.resendRequest.updateMany({ where: { projectId, id, usedCallId: null }, data: { usedCallId: callId } }));
  }

  async appendAudit(entry: AuditEntryRow): Promise<void> {
    await guardDb(() => this.db.auditEntry.create({ data: entry }));
  }

  /** SQL: its prefix match by substr is case-sensitive on both providers, unlike Prisma's startsWith (LIKE on SQLite). */
  async listAudit(projectId: string, page: Page, filter?: AuditFilter): Promise<AuditEntryRow[]> {
    const { sql, values } = auditListStatement(projectId, page, filter);
    return (await this.rows(sql, values)).map(rowToAudit);
  }

  async putMember(projectId: string, userId: string, role: MemberRole, at: number, audit: AuditEntryRow): Promise<void> {
    const upsert: Change = async (tx) => {
      await tx.projectMember.upsert({
        where: { projectId_userId: { projectId, userId } },
        create: { projectId, userId, role, createdAt: at },
        update: { role },
      });
      return 1;
    };
    await this.audited(upsert, audit);
  }

  removeMember(projectId: string, userId: string, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(async (tx) => (await tx.projectMember.deleteMany({ where: { projectId, userId } })).count, audit);
  }

  async insertResendRequest(row: ResendRequestRow, audit: AuditEntryRow): Promise<void> {
    await this.audited(async (tx) => (await tx.resendRequest.create({ data: row }), 1), audit);
  }

  decideResendRequest(projectId: string, id: string, d: ResendDecision, audit: AuditEntryRow): Promise<boolean> {
    const { status, deciderType, deciderId, deciderLabel, note, decidedAt, expiresAt } = d;
    return this.audited(
      async (tx) =>
        (
          await tx.resendRequest.updateMany({
            where: { projectId, id, status: "pending", expiresAt: { gt: decidedAt } },
            data: { status, deciderType, deciderId, deciderLabel, note, decidedAt, expiresAt },
          })
        ).count,
      audit,
    );
  }

  issueResendToken(projectId: string, id: string, tokenHash: string, issuedTo: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(
      async (tx) =>
        (
          await tx.resendRequest.updateMany({
            where: { projectId, id, status: "approved", tokenHash: null, usedAt: null, expiresAt: { gt: at } },
            data: { tokenHash, tokenIssuedTo: issuedTo, tokenIssuedAt: at },
          })
        ).count,
      audit,
    );
  }

  consumeResendToken(projectId: string, id: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(
      async (tx) =>
        (await tx.resendRequest.updateMany({ where: { projectId, id, status: "approved", usedAt: null, expiresAt: { gt: at } }, data: { usedAt: at } })).count,
      audit,
    );
  }

  async createApiKey(row: ApiKeyRow, audit: AuditEntryRow): Promise<void> {
    const { id, projectId, name, prefix, hash, createdAt } = row;
    await this.audited(async (tx) => (await tx.apiKey.create({ data: { id, projectId, name, prefix, hash, createdAt } }), 1), audit);
  }

  revokeApiKey(projectId: string, keyId: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(async (tx) => (await tx.apiKey.updateMany({ where: { projectId, id: keyId, revokedAt: null }, data: { revokedAt: at } })).count, audit);
  }

  /** The record's compare-and-set on (project, key, version), its ledger event and the audit entry. */
  updateRecordByOperator(record: CallRecord, expectedVersion: number, event: GateEvent, audit: AuditEntryRow): Promise<boolean> {
    return this.audited(async (tx) => {
      const { count } = await tx.callRecord.updateMany({
        where: { projectId: record.projectId, key: record.key, version: expectedVersion },
        data: recordChanges(record),
      });
      if (count === 0) return 0;
      await tx.event.create({ data: toStoredEvent(event) });
      return 1;
    }, audit);
  }

  /** Insert-if-absent on (project, key), checked inside the transaction; a racing insert's unique violation is a false. */
  async insertRecordByOperator(record: CallRecord, event: GateEvent, audit: AuditEntryRow): Promise<boolean> {
    try {
      return await this.audited(async (tx) => {
        if ((await tx.callRecord.count({ where: { projectId: record.projectId, key: record.key } })) > 0) return 0;
        await tx.callRecord.create({ data: record });
        await tx.event.create({ data: toStoredEvent(event) });
        return 1;
      }, audit);
    } catch (error) {
      if ((error as { code?: string }).code === "P2002") return false;
      throw error;
    }
  }

  async close(): Promise<void> {
    // The client belongs to the composition root, which disconnects it once for every repository.
  }


  listApiKeys(projectId: string): Promise<ApiKeyRow[]> {
    return guardDb(async () =>
      (await this.db.apiKey.findMany({ where: { projectId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] })).map(toApiKeyRow),
    );
  }
}

function toMemberRow(row: { projectId: string; userId: string; role: string; createdAt: bigint; user: { email: string; name: string } }): MemberRow {
  return { projectId: row.projectId, userId: row.userId, role: row.role as MemberRole, createdAt: Number(row.createdAt), email: row.user.email, name: row.user.name };
}

function toResendRow(row: ResendRequest): ResendRequestRow {
  return {
    ...row,
    requesterType: row.requesterType as ResendRequestRow["requesterType"],
    status: row.status as ResendStatus,
    deciderType: row.deciderType as ResendRequestRow["deciderType"],
    decidedAt: numOrNull(row.decidedAt),
    expiresAt: Number(row.expiresAt),
    tokenIssuedAt: numOrNull(row.tokenIssuedAt),
    usedAt: numOrNull(row.usedAt),
    createdAt: Number(row.createdAt),
  };
}

function toApiKeyRow(row: ApiKey): ApiKeyRow {
  return { ...row, createdAt: Number(row.createdAt), lastUsedAt: numOrNull(row.lastUsedAt), revokedAt: numOrNull(row.revokedAt) };
}
