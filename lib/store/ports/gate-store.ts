import type { CallRecord } from "../../core/record";
import type { PolicyStore } from "./policy-store";

/** resend: an approved bypass raised the key's generation; operator: a record evicted or resolved by hand. */
/** saga: a run aborted (its compensation plan starts). check: a status check could not tell (decision `unknown`). */
export type EventType = "begin" | "complete" | "heartbeat" | "lease_lost" | "resend" | "operator" | "saga" | "check";

/** One decision in the append-only ledger. */
export interface GateEvent {
  id: string;
  projectId: string;
  /** Null for a begin that never reached a record (blocked by the loop detector). */
  callId: string | null;
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
  /** The begin's own args fingerprint (begins only): half of its loop signature. */
  argsFingerprint: string | null;
  /** Whether this begin is a step of the agent's reasoning, as the loop detector counts them. */
  loopStep: boolean;
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
export interface GateStore extends PolicyStore {
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
  /**
   * The installation's secret of this name: `candidate` when this call stored it first, else the
   * value another instance stored (the primary key decides the race).
   */
  installSecret(name: string, candidate: string, now: number): Promise<string>;
  close(): Promise<void>;
}

const UNAVAILABLE_BRAND = Symbol.for("idemgate.StoreUnavailableError");

export class StoreUnavailableError extends Error {
  /** Recognised across the module copies Next.js loads per layer (see AppError). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && UNAVAILABLE_BRAND in value;
  }

  constructor(cause: unknown) {
    super(`store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StoreUnavailableError";
    Object.defineProperty(this, UNAVAILABLE_BRAND, { value: true });
  }
}
