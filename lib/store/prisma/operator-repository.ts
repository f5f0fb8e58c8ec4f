import type { ApiKey, ResendRequest } from "../generated/sqlite/client";
import type { ApiKeyRow } from "../ports/gate-store";
import type { AuditEntryRow, MemberRole, MemberRow, Page, ResendRequestRow, ResendStatus, UserRow } from "../ports/operator-store";
import type { Db } from "./client";
import { guardDb, numOrNull } from "./db-errors";

const USER = { id: true, email: true, name: true, instanceAdmin: true } as const;
const MEMBER = { projectId: true, userId: true, role: true, createdAt: true, user: { select: { email: true, name: true } } } as const;

/**
 * The operators' reads (users, members, resend requests, the audit log, API keys) and their
 * single-statement writes. Changes that must carry their audit entry in the same transaction stay
 * in lib/store/sql: on SQLite a Prisma transaction would hold the write lock across awaits, while
 * single statements here never hold it beyond their own synchronous run.
 */
export class OperatorRepository {
  constructor(private readonly db: Db) {}

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
    await guardDb(() => this.db.auditEntry.create({ data: { ...entry, at: BigInt(entry.at) } }));
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
