import type { OperatorRepository } from "../../prisma/operator-repository";
import type { ApiKeyRow } from "../../ports/gate-store";
import type { AuditEntryRow, MemberRole, MemberRow, OperatorStore, Page, ResendRequestRow, ResendStatus, UserRow } from "../../ports/operator-store";
import { CallListReads } from "./call-list-statements";

type AuditedWrites = "listAudit" | "putMember" | "removeMember" | "insertResendRequest" | "decideResendRequest" | "issueResendToken" | "consumeResendToken" | "createApiKey" | "revokeApiKey" | "updateRecordByOperator";

/**
 * The operator store's reads and single-statement writes go to Prisma Client (one repository for
 * both providers); what stays in each provider's subclass is what must be atomic with its audit
 * entry, written as SQL that commits both at once.
 */
export abstract class OperatorStoreBase extends CallListReads implements Omit<OperatorStore, AuditedWrites | "provider" | "close"> {
  constructor(protected readonly repository: OperatorRepository) {
    super();
  }

  findUserById(id: string): Promise<UserRow | null> {
    return this.repository.findUserById(id);
  }

  findUserByEmail(email: string): Promise<UserRow | null> {
    return this.repository.findUserByEmail(email);
  }

  countUsers(): Promise<number> {
    return this.repository.countUsers();
  }

  setInstanceAdmin(userId: string): Promise<void> {
    return this.repository.setInstanceAdmin(userId);
  }

  findMember(projectId: string, userId: string): Promise<MemberRow | null> {
    return this.repository.findMember(projectId, userId);
  }

  listMembers(projectId: string): Promise<MemberRow[]> {
    return this.repository.listMembers(projectId);
  }

  listMemberships(userId: string): Promise<{ projectId: string; role: MemberRole }[]> {
    return this.repository.listMemberships(userId);
  }

  findResendRequest(projectId: string, id: string): Promise<ResendRequestRow | null> {
    return this.repository.findResendRequest(projectId, id);
  }

  findResendRequestByTokenHash(projectId: string, tokenHash: string): Promise<ResendRequestRow | null> {
    return this.repository.findResendRequestByTokenHash(projectId, tokenHash);
  }

  findOpenResendRequest(projectId: string, key: string, argsFingerprint: string, requesterId: string, now: number): Promise<ResendRequestRow | null> {
    return this.repository.findOpenResendRequest(projectId, key, argsFingerprint, requesterId, now);
  }

  listResendRequests(projectId: string, status: ResendStatus | null, page: Page): Promise<ResendRequestRow[]> {
    return this.repository.listResendRequests(projectId, status, page);
  }

  setResendUsedCall(projectId: string, id: string, callId: string): Promise<void> {
    return this.repository.setResendUsedCall(projectId, id, callId);
  }

  appendAudit(entry: AuditEntryRow): Promise<void> {
    return this.repository.appendAudit(entry);
  }


  listApiKeys(projectId: string): Promise<ApiKeyRow[]> {
    return this.repository.listApiKeys(projectId);
  }
}
