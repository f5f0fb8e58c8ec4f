import type { CallRecord } from "../core/record";

export type EventType = "begin" | "complete" | "heartbeat" | "lease_lost";

/** One decision in the append-only ledger. */
export interface GateEvent {
  id: string;
  projectId: string;
  callId: string;
  key: string;
  tool: string;
  runId: string;
  agentId: string | null;
  toolCallId: string | null;
  type: EventType;
  decision: string;
  attempt: number;
  argsMismatch: boolean;
  latencyUs: number;
  at: number;
  policyVersion: number;
  detail: string | null;
}

export interface ApiKeyRow {
  id: string;
  projectId: string;
  name: string;
  prefix: string;
  hash: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface ProjectRow {
  id: string;
  name: string;
  createdAt: number;
}

/**
 * The narrow storage interface of the gate. Every record write is conditional — insert if the
 * key is absent, or compare-and-set on (project, key, version) — and carries its event in the same
 * transaction, so the database alone decides who executes and nothing is half-written.
 */
export interface GateStore {
  readonly provider: "sqlite" | "postgres";
  findRecordByKey(projectId: string, key: string): Promise<CallRecord | null>;
  findRecordById(projectId: string, id: string): Promise<CallRecord | null>;
  /** False when a record for the key already exists. */
  insertRecord(record: CallRecord, event: GateEvent): Promise<boolean>;
  /** False when the stored version is no longer `expectedVersion`. */
  updateRecord(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<boolean>;
  /** Counts one replay of the record at `expectedVersion`; null when it changed meanwhile. */
  recordReplay(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<number | null>;
  appendEvent(event: GateEvent): Promise<void>;
  listEventsForCall(projectId: string, callId: string): Promise<GateEvent[]>;
  createProject(project: ProjectRow): Promise<boolean>;
  createApiKey(key: ApiKeyRow): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRow | null>;
  touchApiKey(id: string, at: number): Promise<void>;
  close(): Promise<void>;
}

export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StoreUnavailableError";
  }
}
