import type Database from "better-sqlite3";
import type { CallRecord } from "../../../core/record";
import { type BudgetCharge, type RunSpend, budgetExceeded, noSpend } from "../../../core/budget";
import { chargeValues, eventValues, recordValues, rowToApiKey, rowToEvent, rowToRecord, rowToSpend } from "../shared/columns";
import type { CallSignature } from "../../../core/loop-detector";
import {
  POLICY_SQL,
  revisionValues,
  rowToPolicy,
  rowToSignature,
  rowToTraffic,
} from "../shared/policy-statements";
import type { PolicyRow, PolicyWrite, SimulationLedgerRows, ToolTrafficRow } from "../../ports/policy-store";
import { readSimulationLedger } from "../shared/simulation-statements";
import { type SqliteOpenOptions, SqliteStatements, openSqlite } from "../../connection/sqlite-connection";
import { type CheckpointerOptions, SqliteCheckpointer, locateDriver } from "./checkpointer";
import { type Durability, SqliteGroupCommit } from "./group-commit";
import { type ChargedOutcome, WRITE_SQL, type WriteOp, type WriteRunner, applyWriteOp } from "./write-ops";
import { SqliteWriterThread } from "./writer-thread";
import { type RunState, RunStateCache } from "./run-state-cache";
import { LedgerWriteBehind, type WriteBehindOptions, mergeLoopSteps } from "../shared/ledger-write-behind";
import { BUDGET_SQL, SQL } from "../shared/statements";
import type { ApiKeyRow, ChargedWrite, ChargedWriteResult, GateEvent, GateStore, ProjectRow } from "../../ports/gate-store";

/** Whether the op's events were inserted (its record change applied), by the value it answered. */
function inserted(op: WriteOp, value: unknown): boolean {
  switch (op.kind) {
    case "record":
      return value === true;
    case "charged":
      return (value as ChargedOutcome).written;
    case "replay":
      return value !== null;
    default:
      return true;
  }
}

export type { SqliteSynchronous } from "../../connection/sqlite-connection";
/** inline: writes commit on the request thread's connection. worker: on a writer thread's (writer-thread.ts). */
export type SqliteWriter = "inline" | "worker";
export type SqliteStoreOptions = Omit<SqliteOpenOptions, "foreignKeys"> & {
  /** Where writes commit (default inline). */
  writer?: SqliteWriter;
  /** Checkpoint the WAL from a worker thread once the store is busy (default true). */
  backgroundCheckpoints?: boolean;
  /** The worker's settings (checkpointer.ts): tests use them to slow it down or restart sooner. */
  checkpoints?: CheckpointerOptions;
  /** The write-behind ledger of decision-only events (tests shorten or lengthen its bounds). */
  ledger?: WriteBehindOptions;
};

/** Short-lived stores (scripts, tests) never pay for a worker thread: it starts after this many writes. */
const CHECKPOINTER_AFTER_WRITES = 500;

/** The hot connection's page cache: a group commit's pages and the log's newest pages stay in memory. */
const HOT_CACHE_MIB = 32;

/**
 * The embedded store: one better-sqlite3 connection per process with cached prepared statements.
 * Calls are synchronous underneath, so each method is atomic within the process; across processes
 * SQLite's write lock (BEGIN IMMEDIATE) and the unique index decide.
 */
export class SqliteGateStore implements GateStore {
  readonly provider = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly sql: SqliteStatements;
  private readonly commits: SqliteGroupCommit;
  /** Set in worker mode: every write goes there, and the connection above only reads. */
  private readonly writer: SqliteWriterThread | null;
  private readonly runner: WriteRunner;
  private readonly checkpointer: SqliteCheckpointer | null;
  private readonly ledger: LedgerWriteBehind;
  /**
   * Runs' loop steps and aborts as last read, while no other connection has committed
   * (run-state-cache.ts). Null in worker mode: every write is then another connection's commit.
   */
  private readonly runStates: RunStateCache | null;
  private readonly dataVersion: Database.Statement;
  private writes = 0;

  constructor(file: string, options: SqliteStoreOptions = {}) {
    this.db = openSqlite(file, { cacheMiB: HOT_CACHE_MIB, ...options, foreignKeys: true });
    this.sql = new SqliteStatements(this.db);
    this.commits = new SqliteGroupCommit(this.sql, options.synchronous ?? "full");
    this.runner = { run: (name, params) => this.sql.run(WRITE_SQL[name], params), get: (name, params) => this.sql.get(WRITE_SQL[name], params) };
    const driver = options.writer === "worker" && file !== ":memory:" ? locateDriver() : null;
    this.writer = driver
      ? new SqliteWriterThread({ file, driver, synchronous: options.synchronous ?? "full", busyTimeoutMs: options.busyTimeoutMs ?? 5_000, cacheMiB: HOT_CACHE_MIB })
      : null;
    // A batch of decision-only events is one relaxed write of the group commit: one transaction,
    // no fsync of its own (a durable commit after it syncs it along, as for every relaxed write).
    this.runStates = this.writer ? null : new RunStateCache();
    this.dataVersion = this.db.prepare("PRAGMA data_version").pluck();
    this.ledger = new LedgerWriteBehind(
      (events) => this.write<void>({ kind: "events", sql: "insertEventOnce", events: events.map(eventValues) }, "relaxed", events),
      options.ledger,
    );
    this.checkpointer = options.backgroundCheckpoints === false || file === ":memory:" ? null : SqliteCheckpointer.for(file, options.checkpoints);
  }

  /**
   * Every write goes through a group commit: it alone decides its connection's synchronous mode.
   * `events`: the events the op inserts when it applies; their loop steps join the run states once committed.
   */
  private write<T>(op: WriteOp, durability: Durability = "durable", events?: readonly GateEvent[]): Promise<T> {
    if (this.checkpointer && ++this.writes === CHECKPOINTER_AFTER_WRITES) this.startCheckpointer();
    if (this.writer) return this.writer.write<T>(op, durability);
    const runStates = this.runStates;
    const afterCommit = runStates && events ? (value: T) => inserted(op, value) && runStates.committed(events) : undefined;
    return this.commits.write(() => applyWriteOp(this.runner, op, budgetExceeded) as T, durability, afterCommit);
  }

  /**
   * The run's newest loop steps (newest first) and its abort: from the run states while no other
   * connection has committed, else read (and kept).
   */
  private runState(projectId: string, runId: string, historyLimit: number): RunState {
    const runStates = this.runStates;
    if (runStates) {
      runStates.observe(Number(this.dataVersion.get()));
      const held = runStates.get(projectId, runId, historyLimit);
      if (held) return held;
    }
    const steps = historyLimit > 0 ? this.sql.all(POLICY_SQL.loopHistory, [projectId, runId, historyLimit]).map(rowToSignature) : [];
    const aborted = this.sql.get(SQL.runAborted, [projectId, runId]) !== undefined;
    runStates?.set(projectId, runId, historyLimit, { steps, aborted });
    return { steps, aborted };
  }

  private startCheckpointer(): void {
    // From now on the writing connection never runs a checkpoint (checkpointer.ts).
    this.checkpointer!.start(this.writer?.connection ?? this.db);
  }

  /** Transactions committed and writes they carried, on whichever connection writes. */
  get commitCounts(): { commits: number; writes: number } {
    return { ...(this.writer ?? this.commits).counts };
  }

  /** The background checkpointer, once started (tests and diagnostics). */
  get checkpoints(): SqliteCheckpointer | null {
    return this.checkpointer?.running ? this.checkpointer : null;
  }

  findRecordByKey(projectId: string, key: string): Promise<CallRecord | null> {
    return this.sql.guard(() => {
      const row = this.sql.get(SQL.recordByKey, [projectId, key]);
      return row ? rowToRecord(row) : null;
    });
  }

  findRecordWithHistory(projectId: string, key: string, runId: string, historyLimit: number): Promise<{ record: CallRecord | null; history: CallSignature[]; runAborted: boolean }> {
    return this.sql.guard(() => {
      // No record has an empty key: the caller has it already (a cached replay) or needs none.
      const row = key === "" ? undefined : this.sql.get(SQL.recordByKey, [projectId, key]);
      const run = this.runState(projectId, runId, historyLimit);
      // As loopHistory: this process's queued loop steps count too.
      const history = mergeLoopSteps(run.steps, this.ledger.pendingLoopSteps(projectId, runId), historyLimit);
      return { record: row ? rowToRecord(row) : null, history, runAborted: run.aborted };
    });
  }

  findRecordById(projectId: string, id: string): Promise<CallRecord | null> {
    return this.sql.guard(() => {
      const row = this.sql.get(SQL.recordById, [projectId, id]);
      return row ? rowToRecord(row) : null;
    });
  }

  insertRecord(record: CallRecord, event: GateEvent): Promise<boolean> {
    return this.write({ kind: "record", sql: "insertRecord", record: recordValues(record), event: eventValues(event) }, "durable", [event]);
  }

  updateRecord(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<boolean> {
    return this.write({ kind: "record", sql: "updateRecord", record: [...recordValues(record), expectedVersion], event: eventValues(event) }, "durable", [event]);
  }

  /** Check, write and count in one immediate transaction: SQLite's write lock serialises every process. */
  async writeCharged(write: ChargedWrite, record: CallRecord, event: GateEvent, charge: BudgetCharge): Promise<ChargedWriteResult> {
    const outcome = await this.write<ChargedOutcome>({
      kind: "charged",
      sql: write.op === "insert" ? "insertRecord" : "updateRecord",
      record: write.op === "insert" ? recordValues(record) : [...recordValues(record), write.expectedVersion],
      event: eventValues(event),
      charge: chargeValues(record, charge, event.at),
      enforce: charge.enforce ? { spend: [record.projectId, record.runId], charge } : null,
    }, "durable", [event]);
    if (outcome.written) return { written: true };
    if (outcome.lost) return { written: false, exceeded: null };
    return { written: false, exceeded: outcome.refused ? rowToSpend(outcome.refused) : noSpend(charge) };
  }

  runSpend(projectId: string, runId: string): Promise<RunSpend | null> {
    return this.sql.guard(() => {
      const row = this.sql.get(BUDGET_SQL.spend, [projectId, runId]);
      return row ? rowToSpend(row) : null;
    });
  }

  /**
   * The counter is committed with the answer, and so is its event, even when it could be written
   * behind: the counter already takes a (relaxed, group-committed) write, and the line rides in it
   * for the price of one insert. Queuing it measured slower at 32 clients (5,417 vs 6,856 replays/s
   * in process) and no faster at 1, so on SQLite only decisions without a write of their own go behind.
   */
  async recordReplay(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<number | null> {
    return this.write({ kind: "replay", params: [record.projectId, record.key, expectedVersion, record.id], event: eventValues(event) }, "relaxed", [event]);
  }

  appendEvent(event: GateEvent): Promise<void> {
    return this.write({ kind: "events", sql: "insertEvent", events: [eventValues(event)] }, "relaxed", [event]);
  }

  appendDecision(event: GateEvent): Promise<void> {
    return this.ledger.add(event);
  }

  settleLedger(): Promise<void> {
    return this.ledger.flush();
  }

  /** The write-behind ledger's counters and queue (tests, diagnostics). */
  get ledgerState(): { pending: number; batches: number; events: number } {
    return { pending: this.ledger.pending, ...this.ledger.counts };
  }

  async listEventsForCall(projectId: string, callId: string): Promise<GateEvent[]> {
    await this.ledger.flush();
    return this.sql.guard(() => this.sql.all(SQL.eventsForCall, [projectId, callId]).map(rowToEvent));
  }

  async createProject(project: ProjectRow): Promise<boolean> {
    return (await this.write<number>({ kind: "run", sql: "insertProject", params: [project.id, project.name, project.createdAt] })) === 1;
  }

  installSecret(name: string, candidate: string, now: number): Promise<string> {
    return this.write({ kind: "secret", insert: [name, candidate, now], name });
  }

  async createApiKey(key: ApiKeyRow): Promise<void> {
    await this.write({ kind: "run", sql: "insertApiKey", params: [key.id, key.projectId, key.name, key.prefix, key.hash, key.createdAt] });
  }

  findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    return this.sql.guard(() => {
      const row = this.sql.get(SQL.apiKeyByHash, [hash]);
      return row ? rowToApiKey(row) : null;
    });
  }

  allowPatterns(projectId: string): Promise<string[]> {
    return this.sql.guard(() => this.sql.all(SQL.allowPatterns, [projectId]).map((row) => String(row.pattern)));
  }

  async touchApiKey(id: string, at: number): Promise<void> {
    await this.write({ kind: "run", sql: "touchApiKey", params: [id, at] }, "relaxed");
  }

  findPolicyLayers(projectId: string, tool: string): Promise<PolicyRow[]> {
    return this.sql.guard(() => this.sql.all(POLICY_SQL.layers, [projectId, tool]).map(rowToPolicy));
  }

  async discoverTool(projectId: string, tool: string, at: number): Promise<void> {
    await this.write({ kind: "run", sql: "discover", params: [projectId, tool, at] }, "relaxed");
  }

  /** The run's steps on the ledger and those still queued here: a replay answered a moment ago counts. */
  loopHistory(projectId: string, runId: string, limit: number): Promise<CallSignature[]> {
    return this.sql.guard(() => mergeLoopSteps(this.runState(projectId, runId, limit).steps, this.ledger.pendingLoopSteps(projectId, runId), limit));
  }

  projectExists(projectId: string): Promise<boolean> {
    return this.sql.guard(() => this.sql.get(POLICY_SQL.projectExists, [projectId]) !== undefined);
  }



  /** Check, number and write inside one transaction: SQLite's write lock serialises writers. */
  writePolicy(write: PolicyWrite): Promise<number | null> {
    // The version (index 3 of both) is numbered inside the transaction (write-ops.ts).
    return this.write({
      kind: "policy",
      projectId: write.projectId,
      tool: write.tool,
      expectedVersion: write.expectedVersion,
      layer: [write.projectId, write.tool, write.overrides, null, write.at, write.author],
      revision: revisionValues(write, 0),
    });
  }



  async toolTraffic(projectId: string, since: number): Promise<ToolTrafficRow[]> {
    await this.ledger.flush();
    return this.sql.guard(() => this.sql.all(POLICY_SQL.traffic, [projectId, since]).map(rowToTraffic));
  }

  async simulationLedger(projectId: string, tool: string, sampleSize: number): Promise<SimulationLedgerRows> {
    await this.ledger.flush();
    return readSimulationLedger((text, params) => this.sql.guard(() => this.sql.all(text, params)), projectId, tool, sampleSize);
  }

  async close(): Promise<void> {
    // The queued decisions are written before the connection goes (graceful shutdown loses none).
    await this.ledger.flush().catch((error: unknown) => console.error("[idemgate] ledger: queued decision events not written at close", error));
    this.ledger.stop();
    await this.checkpointer?.stop();
    this.commits.flush();
    await this.writer?.close();
    this.db.close();
  }
}

