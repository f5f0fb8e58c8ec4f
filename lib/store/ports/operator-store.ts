import type { CallRecord } from "../../core/record";
import type { ToolLedgerLine } from "../../core/tool-figures";
import type { CallListFilter, CallListRow, RunListFilter, RunRow, SortedCallPage, SortedRunPage } from "./call-list";
import type { ApiKeyRow, GateEvent } from "./gate-store";

export type MemberRole = "viewer" | "operator" | "admin";

/** A project membership joined with its user, as operators see it. */
export interface MemberRow {
  projectId: string;
  userId: string;
  role: MemberRole;
  createdAt: number;
  email: string;
  name: string;
}

export interface UserRow {
  id: string;
  email: string;
  name: string;
  instanceAdmin: boolean;
}

export type ResendStatus = "pending" | "approved" | "denied";

export interface ResendRequestRow {
  id: string;
  projectId: string;
  callId: string;
  tool: string;
  /** The derived key without generation suffix. */
  key: string;
  argsFingerprint: string;
  args: string | null;
  reason: string;
  requesterType: "agent" | "user";
  requesterId: string;
  requesterLabel: string;
  status: ResendStatus;
  deciderType: "user" | "policy" | null;
  deciderId: string | null;
  deciderLabel: string | null;
  note: string | null;
  decidedAt: number | null;
  expiresAt: number;
  tokenHash: string | null;
  tokenIssuedAt: number | null;
  tokenIssuedTo: string | null;
  usedAt: number | null;
  usedCallId: string | null;
  createdAt: number;
}

export interface ResendDecision {
  status: "approved" | "denied";
  deciderType: "user" | "policy";
  deciderId: string;
  deciderLabel: string;
  note: string | null;
  decidedAt: number;
  /** For an approval: until when the token may be used. */
  expiresAt: number;
}

export interface AuditEntryRow {
  id: string;
  projectId: string | null;
  at: number;
  actorType: "user" | "agent" | "system";
  actorId: string | null;
  actorLabel: string | null;
  action: string;
  targetType: string;
  targetId: string;
  detail: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface Page {
  limit: number;
  /** Only entries with an id before this one (ids sort by time). */
  before?: string;
}

/** The audit log's filters; absent means any. */
export interface AuditFilter {
  /** The actor's label (email, API key) starts with this, or it is the actor's id. */
  actor?: string;
  /** The action starts with this (`policy.` or `policy.updated`). */
  action?: string;
  /** Epoch ms: at or after / before. */
  from?: number;
  to?: number;
}

/**
 * Storage for operators, resend requests and the audit log: a store of its own beside GateStore,
 * on its own connection (shared with better-auth). Every state change is conditional and carries
 * its audit entry in the same transaction, so nothing happens that the log does not show.
 */
export interface OperatorStore {
  readonly provider: "sqlite" | "postgres";

  findUserById(id: string): Promise<UserRow | null>;
  findUserByEmail(email: string): Promise<UserRow | null>;
  countUsers(): Promise<number>;
  setInstanceAdmin(userId: string): Promise<void>;

  findMember(projectId: string, userId: string): Promise<MemberRow | null>;
  /** The user's memberships, every project. */
  listMemberships(userId: string): Promise<{ projectId: string; role: MemberRole }[]>;
  listMembers(projectId: string): Promise<MemberRow[]>;
  /** Adds the membership or changes its role. */
  putMember(projectId: string, userId: string, role: MemberRole, at: number, audit: AuditEntryRow): Promise<void>;
  removeMember(projectId: string, userId: string, audit: AuditEntryRow): Promise<boolean>;

  insertResendRequest(row: ResendRequestRow, audit: AuditEntryRow): Promise<void>;
  findResendRequest(projectId: string, id: string): Promise<ResendRequestRow | null>;
  findResendRequestByTokenHash(projectId: string, tokenHash: string): Promise<ResendRequestRow | null>;
  /** The requester's latest request for this key and arguments that is pending, or approved and unused. */
  findOpenResendRequest(projectId: string, key: string, argsFingerprint: string, requesterId: string, now: number): Promise<ResendRequestRow | null>;
  listResendRequests(projectId: string, status: ResendStatus | null, page: Page): Promise<ResendRequestRow[]>;
  /** False unless the request was still pending and undecided at `decision.decidedAt`. */
  decideResendRequest(projectId: string, id: string, decision: ResendDecision, audit: AuditEntryRow): Promise<boolean>;
  /** Stores the hash of a freshly minted token; false when one was minted already or the approval lapsed. */
  issueResendToken(projectId: string, id: string, tokenHash: string, issuedTo: string, at: number, audit: AuditEntryRow): Promise<boolean>;
  /** Marks the token used; false when it was used already or expired (the single-use arbiter). */
  consumeResendToken(projectId: string, id: string, at: number, audit: AuditEntryRow): Promise<boolean>;
  setResendUsedCall(projectId: string, id: string, callId: string): Promise<void>;

  appendAudit(entry: AuditEntryRow): Promise<void>;
  listAudit(projectId: string, page: Page, filter?: AuditFilter): Promise<AuditEntryRow[]>;

  listApiKeys(projectId: string): Promise<ApiKeyRow[]>;
  createApiKey(row: ApiKeyRow, audit: AuditEntryRow): Promise<void>;
  revokeApiKey(projectId: string, keyId: string, at: number, audit: AuditEntryRow): Promise<boolean>;

  /** An operator's change of a call record (evict, resolve): the record's CAS, its event and the audit entry at once. */
  updateRecordByOperator(record: CallRecord, expectedVersion: number, event: GateEvent, audit: AuditEntryRow): Promise<boolean>;
  /** An operator's record for a key that has none yet (an undo resolved before it began): false when one exists. */
  insertRecordByOperator(record: CallRecord, event: GateEvent, audit: AuditEntryRow): Promise<boolean>;

  // The calls and runs explorer (lib/store/call-list-statements.ts): reads only.
  /** In the page's sort (newest first by (first seen, id) by default), ties by id. */
  listCalls(projectId: string, filter: CallListFilter, page: SortedCallPage): Promise<CallListRow[]>;
  /** A tool's begins and completes in [from, to), oldest first (the newest `limit`). */
  toolLedger(projectId: string, tool: string, from: number, to: number, limit: number): Promise<ToolLedgerLine[]>;
  /** Begins with these decisions in [from, to), newest first, records or not (loop blocks have none). */
  listDecisions(projectId: string, filter: { decisions: readonly string[]; from: number; to: number; tool?: string }, limit: number): Promise<{ total: number; withoutRecord: number; events: GateEvent[] }>;
  /** In the page's sort (newest first by their first call by default), with counts. */
  listRuns(projectId: string, page: SortedRunPage, filter?: RunListFilter): Promise<RunRow[]>;
  listRunCalls(projectId: string, runId: string, limit: number): Promise<CallListRow[]>;
  listRunEvents(projectId: string, runId: string, limit: number): Promise<GateEvent[]>;
  listCallEvents(projectId: string, callId: string, limit: number): Promise<GateEvent[]>;

  close(): Promise<void>;
}
