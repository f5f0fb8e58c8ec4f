import type { CallSignature } from "../../core/loop-detector";
import type { BudgetCharge, RunSpend } from "../../core/budget";
import type { CallRecord } from "../../core/record";
import type { PolicyRow, PolicyStore } from "./policy-store";

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
  /** Shadow mode: what the gate would have decided (`would_replay`, …) when it answered execute. */
  shadowDecision?: string | null;
}

/** A record write that pays its run's budget: `insert`, or compare-and-set from `expectedVersion`. */
export type ChargedWrite = { op: "insert" } | { op: "update"; expectedVersion: number };

/**
 * A begin's reads in one statement (Postgres): the tool's policy layers, the record under `key`,
 * the run's latest loop steps and, with `claim`, the claim itself — written only if every guard
 * holds: the layers are still those `claim.policyStamp` names (null: the policy is not the
 * store's), no record under `key` (the unique index decides) nor under `claim.legacyKey`, and the
 * call's signature is not among the run's last `historyLimit` loop steps (committed or queued
 * here), so the claim cannot be a loop step the detector would block or flag.
 */
export interface BeginStatement {
  projectId: string;
  tool: string;
  key: string;
  runId: string;
  /** 0: no history is read. */
  historyLimit: number;
  claim: { record: CallRecord; event: GateEvent; argsFingerprint: string; legacyKey: string | null; policyStamp: string | null } | null;
}

export interface BeginStatementResult {
  /** The claim and its event were committed; nothing else of this result is then meaningful. */
  claimed: boolean;
  /** The record under `key` as of the statement (null also when a concurrent claim is not yet visible). */
  record: CallRecord | null;
  /** The run's latest loop steps, newest first, this process's queued ones merged in. */
  history: CallSignature[];
  layers: PolicyRow[];
  /** The run was aborted (run_aborts): the claim is never made then. */
  runAborted: boolean;
}

/** written: the record, its event and the charge were committed together. Else `exceeded` says why not (null: a lost race). */
export type ChargedWriteResult = { written: true } | { written: false; exceeded: RunSpend | null };

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
  /**
   * A begin's reads at once: the record under `key`, the run's latest loop steps, newest first
   * (loopHistory's; none when `historyLimit` is 0), and whether the run was aborted. One statement,
   * one round trip on Postgres.
   */
  findRecordWithHistory(projectId: string, key: string, runId: string, historyLimit: number): Promise<{ record: CallRecord | null; history: CallSignature[]; runAborted: boolean }>;
  findRecordById(projectId: string, id: string): Promise<CallRecord | null>;
  /** Postgres only: a begin's reads, and its claim when it is a first execution, in one round trip. */
  beginStatement?(statement: BeginStatement): Promise<BeginStatementResult>;
  /** False when a record for the key already exists. */
  insertRecord(record: CallRecord, event: GateEvent): Promise<boolean>;
  /**
   * Postgres only: updateRecord, written only while the tool's policy layers still make
   * `policyStamp` (policy-statements.ts); the layers as the statement read them come back either way.
   */
  updateRecordUnderPolicy?(record: CallRecord, expectedVersion: number, event: GateEvent, policyStamp: string): Promise<{ written: boolean; layers: PolicyRow[] }>;
  /** False when the stored version is no longer `expectedVersion`. */
  updateRecord(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<boolean>;
  /**
   * Counts one replay of the record at `expectedVersion` (committed before it resolves, so the
   * counts stay exact across instances); null when it changed meanwhile, or is no longer the record
   * with `record.id` (purged, its key claimed again): a cached record is only ever answered through this. Its event is committed
   * with the count, or with `writeBehind` queued for the write-behind ledger as by `appendDecision`.
   */
  recordReplay(record: CallRecord, expectedVersion: number, event: GateEvent, writeBehind?: boolean): Promise<number | null>;
  /**
   * The write and its event, plus the charge to the run's budget counter, in one transaction. With
   * `charge.enforce`, the counter is checked (core/budget.ts, budgetRefusal) under the run row's
   * lock before the record is written: concurrent begins of one run never pass its limit. Only
   * budgeted executions and reported costs come here; replays never do.
   */
  writeCharged(write: ChargedWrite, record: CallRecord, event: GateEvent, charge: BudgetCharge): Promise<ChargedWriteResult>;
  /** A run's spend, or null before its first budgeted execution. */
  runSpend(projectId: string, runId: string): Promise<RunSpend | null>;
  /** Appends an event and resolves once it is committed. */
  appendEvent(event: GateEvent): Promise<void>;
  /**
   * A decision-only event (it changes no record: in_progress, refused, conflict, blocked, …) for
   * the write-behind ledger (hot/shared/ledger-write-behind.ts): resolves once it is queued, and is
   * committed within a few milliseconds. A hard crash can lose the last few of these, never a claim
   * or a completion. Waits (and can fail as the store does) only when the queue is full.
   */
  appendDecision(event: GateEvent): Promise<void>;
  /**
   * Resolves once every decision-only event queued so far is committed: readers of the ledger on
   * another connection call it first to read this process's own writes.
   */
  settleLedger(): Promise<void>;
  /** The call's events, this process's queued ones included (it settles the ledger first). */
  listEventsForCall(projectId: string, callId: string): Promise<GateEvent[]>;
  createProject(project: ProjectRow): Promise<boolean>;
  createApiKey(key: ApiKeyRow): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRow | null>;
  touchApiKey(id: string, at: number): Promise<void>;
  /**
   * The project's outbound allowlist patterns, read fresh (never cached: a removed entry must stop
   * admitting at once on every instance). Here, not through Prisma, because every outbound call
   * reads it and this is one indexed read on the hot path's own connection (issue #34 §4).
   */
  allowPatterns(projectId: string): Promise<string[]>;
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
