import type pg from "pg";
import type { CallRecord } from "../../../core/record";
import { type BudgetCharge, type RunSpend, budgetRefusal } from "../../../core/budget";
import { EVENT_COLUMNS, RECORD_COLUMNS, chargeValues, eventValues, recordValues, rowToApiKey, rowToEvent, rowToRecord, rowToSpend } from "../shared/columns";
import type { CallSignature } from "../../../core/loop-detector";
import {
  PG_POLICY_WRITE,
  POLICY_SQL,
  pgPolicyWriteValues,
  rowToPolicy,
  rowToSignature,
  rowToTraffic,
  tupleToPolicy,
} from "../shared/policy-statements";
import type { PolicyRow, PolicyWrite, SimulationLedgerRows, ToolTrafficRow } from "../../ports/policy-store";
import { readSimulationLedger } from "../shared/simulation-statements";
import { BUDGET_SQL, PG_SQL, SQL } from "../shared/statements";
import {
  type ApiKeyRow,
  type BeginStatement,
  type BeginStatementResult,
  type ChargedWrite,
  type ChargedWriteResult,
  type GateEvent,
  type GateStore,
  type ProjectRow,
  StoreUnavailableError,
} from "../../ports/gate-store";
import { isPgUnavailable } from "../../connection/pg-errors";
import { LedgerWriteBehind, type WriteBehindOptions, mergeLoopSteps } from "../shared/ledger-write-behind";

const UNIQUE_VIOLATION = "23505";
/** Concurrent policy writers in one project collide on the revision number; each retry re-numbers. */
const MAX_REVISION_RACES = 10;

/** Statement names let every pooled connection prepare each hot statement once. */
const names = new Map<string, string>();
function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `ig_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/**
 * The scale-out store: any number of gate instances share one Postgres. Each record change and
 * its event travel as one statement, one round trip; the unique index on (project, key) and the
 * version check in the WHERE clause decide every race.
 */
export class PostgresGateStore implements GateStore {
  readonly provider = "postgres" as const;
  private readonly ledger: LedgerWriteBehind;
  /** Connections whose commits do not wait for the disk (createRelaxedPgPool): replays and decision-only lines. */
  private readonly relaxed: pg.Pool;

  /** `relaxed`: see createRelaxedPgPool; without it those writes commit durably on `pool`. */
  constructor(
    private readonly pool: pg.Pool,
    options: { ledger?: WriteBehindOptions; relaxed?: pg.Pool } = {},
  ) {
    this.relaxed = options.relaxed ?? pool;
    // A batch of decision-only events is one INSERT … SELECT FROM unnest(…): one round trip and one
    // commit for the batch, one pooled connection.
    this.ledger = new LedgerWriteBehind(async (events) => {
      await this.rows(PG_SQL.insertEvents, eventColumns(events), this.relaxed);
    }, options.ledger);
  }

  private async rows(text: string, values: unknown[], pool = this.pool): Promise<Record<string, unknown>[]> {
    return this.withClient(async (client) => (await client.query({ name: nameOf(text), text, values })).rows, pool);
  }

  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>, pool = this.pool): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      // Whatever stops us from getting a connection, the request itself was fine: retryable.
      throw new StoreUnavailableError(error);
    }
    try {
      const result = await work(client);
      client.release();
      return result;
    } catch (error) {
      const unavailable = isPgUnavailable(error);
      client.release(unavailable ? (error as Error) : undefined);
      if (unavailable) throw new StoreUnavailableError(error);
      throw error;
    }
  }

  /**
   * Budgeted claims take the run row's lock first (BUDGET_SQL.lock), check, write the record and
   * its event, count, and commit: several round trips, paid only by budgeted executions.
   */
  async writeCharged(write: ChargedWrite, record: CallRecord, event: GateEvent, charge: BudgetCharge): Promise<ChargedWriteResult> {
    return this.withClient(async (client) => {
      const run = async (text: string, values: unknown[]) => (await client.query({ name: nameOf(text), text, values })).rows;
      await client.query("BEGIN");
      try {
        const result = await chargedWrite(run, write, record, event, charge);
        await client.query(result.written ? "COMMIT" : "ROLLBACK");
        return result;
      } catch (error) {
        // A broken connection fails this too; withClient then drops it from the pool.
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  async runSpend(projectId: string, runId: string): Promise<RunSpend | null> {
    const [row] = await this.rows(BUDGET_SQL.spend, [projectId, runId]);
    return row ? rowToSpend(row) : null;
  }

  async findRecordByKey(projectId: string, key: string): Promise<CallRecord | null> {
    const [row] = await this.rows(SQL.recordByKey, [projectId, key]);
    return row ? rowToRecord(row) : null;
  }

  async findRecordWithHistory(projectId: string, key: string, runId: string, historyLimit: number): Promise<{ record: CallRecord | null; history: CallSignature[]; runAborted: boolean }> {
    // As loopHistory: this process's queued loop steps, taken before the read, count too.
    const held = this.ledger.pendingLoopSteps(projectId, runId);
    const [row] = await this.rows(PG_SQL.recordWithHistory, [projectId, key, runId, historyLimit]);
    const read = (row!.loop_history as [string, string, string][]).map(([id, tool, argsFingerprint]) => ({ id, tool, argsFingerprint }));
    return { record: row!.id == null ? null : rowToRecord(row!), history: mergeLoopSteps(read, held, historyLimit), runAborted: row!.run_aborted === true };
  }

  async beginStatement(statement: BeginStatement): Promise<BeginStatementResult> {
    const { projectId, tool, key, runId, historyLimit, claim } = statement;
    // As loopHistory: queued loop steps taken before the read count too; a queued step with the
    // call's signature may make it a loop, so the claim is left to the full plan.
    const held = this.ledger.pendingLoopSteps(projectId, runId);
    const guarded = claim !== null && !(historyLimit > 0 && held.some((step) => step.tool === tool && step.argsFingerprint === claim.argsFingerprint));
    const nulls = (n: number) => new Array<null>(n).fill(null);
    const [row] = await this.rows(PG_SQL.beginStatement, [
      projectId,
      tool,
      key,
      runId,
      historyLimit,
      guarded,
      claim?.policyStamp ?? null,
      claim?.argsFingerprint ?? null,
      claim?.legacyKey ?? null,
      ...(guarded ? recordValues(claim.record) : nulls(RECORD_COLUMNS.length)),
      ...(guarded ? eventValues(claim.event) : nulls(EVENT_COLUMNS.length)),
    ]);
    const read = (row!.loop_history as [string, string, string][]).map(([id, tool, argsFingerprint]) => ({ id, tool, argsFingerprint }));
    return {
      claimed: Number(row!.claimed) === 1,
      record: row!.id == null ? null : rowToRecord(row!),
      history: mergeLoopSteps(read, held, historyLimit),
      layers: (row!.layers as unknown[][]).map(tupleToPolicy),
      runAborted: row!.run_aborted === true,
    };
  }

  async findRecordById(projectId: string, id: string): Promise<CallRecord | null> {
    const [row] = await this.rows(SQL.recordById, [projectId, id]);
    return row ? rowToRecord(row) : null;
  }

  async insertRecord(record: CallRecord, event: GateEvent): Promise<boolean> {
    const rows = await this.rows(PG_SQL.insertRecordWithEvent, [...recordValues(record), ...eventValues(event)]);
    return rows.length === 1;
  }

  async updateRecord(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<boolean> {
    const rows = await this.rows(PG_SQL.updateRecordWithEvent, [
      ...recordValues(record),
      expectedVersion,
      ...eventValues(event),
    ]);
    return rows.length === 1;
  }

  async updateRecordUnderPolicy(record: CallRecord, expectedVersion: number, event: GateEvent, policyStamp: string): Promise<{ written: boolean; layers: PolicyRow[] }> {
    const [row] = await this.rows(PG_SQL.guardedUpdate, [...recordValues(record), expectedVersion, ...eventValues(event), policyStamp]);
    return { written: Number(row!.written) === 1, layers: (row!.layers as unknown[][]).map(tupleToPolicy) };
  }

  /**
   * The counter is committed with the answer (exact across instances); its event too, in the same
   * statement, unless it is written behind. A replay changes no decision: its commit is a relaxed one.
   */
  async recordReplay(record: CallRecord, expectedVersion: number, event: GateEvent, writeBehind = false): Promise<number | null> {
    if (!writeBehind) {
      const [row] = await this.rows(PG_SQL.recordReplayWithEvent, [record.projectId, record.key, expectedVersion, record.id, ...eventValues(event)], this.relaxed);
      return row ? Number(row.replays) : null;
    }
    const [row] = await this.rows(SQL.recordReplay, [record.projectId, record.key, expectedVersion, record.id], this.relaxed);
    if (!row) return null;
    await this.ledger.add(event);
    return Number(row.replays);
  }

  async appendEvent(event: GateEvent): Promise<void> {
    await this.rows(SQL.insertEvent, eventValues(event));
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
    return (await this.rows(SQL.eventsForCall, [projectId, callId])).map(rowToEvent);
  }

  async createProject(project: ProjectRow): Promise<boolean> {
    const rows = await this.rows(`${SQL.insertProject} RETURNING 1`, [project.id, project.name, project.createdAt]);
    return rows.length === 1;
  }

  async installSecret(name: string, candidate: string, now: number): Promise<string> {
    await this.rows(SQL.insertInstallSecret, [name, candidate, now]);
    const [row] = await this.rows(SQL.installSecret, [name]);
    return String(row!.value);
  }

  async createApiKey(key: ApiKeyRow): Promise<void> {
    await this.rows(SQL.insertApiKey, [key.id, key.projectId, key.name, key.prefix, key.hash, key.createdAt]);
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    const [row] = await this.rows(SQL.apiKeyByHash, [hash]);
    return row ? rowToApiKey(row) : null;
  }

  async allowPatterns(projectId: string): Promise<string[]> {
    return (await this.rows(SQL.allowPatterns, [projectId])).map((row) => String(row.pattern));
  }

  async touchApiKey(id: string, at: number): Promise<void> {
    await this.rows(SQL.touchApiKey, [id, at]);
  }

  async findPolicyLayers(projectId: string, tool: string): Promise<PolicyRow[]> {
    return (await this.rows(POLICY_SQL.layers, [projectId, tool])).map(rowToPolicy);
  }

  async discoverTool(projectId: string, tool: string, at: number): Promise<void> {
    await this.rows(POLICY_SQL.discover, [projectId, tool, at]);
  }

  /** The run's steps on the ledger and those still queued here: a replay answered a moment ago counts. */
  async loopHistory(projectId: string, runId: string, limit: number): Promise<CallSignature[]> {
    // Taken before the read: an event leaves the queue only once committed, so one committed
    // meanwhile is in the read, the snapshot or both (merged by id), never in neither.
    const held = this.ledger.pendingLoopSteps(projectId, runId);
    const read = (await this.rows(POLICY_SQL.loopHistory, [projectId, runId, limit])).map(rowToSignature);
    return mergeLoopSteps(read, held, limit);
  }

  async projectExists(projectId: string): Promise<boolean> {
    return (await this.rows(POLICY_SQL.projectExists, [projectId])).length === 1;
  }



  async writePolicy(write: PolicyWrite): Promise<number | null> {
    for (let races = 0; ; races++) {
      try {
        const [row] = await this.rows(PG_POLICY_WRITE, pgPolicyWriteValues(write));
        return row ? Number(row.version) : null;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code !== UNIQUE_VIOLATION || races >= MAX_REVISION_RACES) throw error;
      }
    }
  }



  async toolTraffic(projectId: string, since: number): Promise<ToolTrafficRow[]> {
    await this.ledger.flush();
    return (await this.rows(POLICY_SQL.traffic, [projectId, since])).map(rowToTraffic);
  }

  async simulationLedger(projectId: string, tool: string, sampleSize: number): Promise<SimulationLedgerRows> {
    await this.ledger.flush();
    return readSimulationLedger((text, params) => this.rows(text, params), projectId, tool, sampleSize);
  }

  async close(): Promise<void> {
    // The queued decisions are written before the pool goes (graceful shutdown loses none).
    await this.ledger.flush().catch((error: unknown) => console.error("[idemgate] ledger: queued decision events not written at close", error));
    this.ledger.stop();
    await this.pool.end();
    if (this.relaxed !== this.pool) await this.relaxed.end();
  }
}

/**
 * PG_SQL.insertEvents' parameters: one array per column. Sorted by what the rollup trigger locks
 * (project, tool, decision): two instances' batches take those rows in the same order.
 */
function eventColumns(events: readonly GateEvent[]): unknown[][] {
  const sorted = [...events].sort((a, b) => compare(a.projectId, b.projectId) || compare(a.tool, b.tool) || compare(a.decision, b.decision) || compare(a.id, b.id));
  const rows = sorted.map(eventValues);
  return EVENT_COLUMNS.map((_, i) => rows.map((row) => row[i]));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Run = (text: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

/** Inside BEGIN: lock and check the run's counter, write the record and its event, count. */
async function chargedWrite(run: Run, write: ChargedWrite, record: CallRecord, event: GateEvent, charge: BudgetCharge): Promise<ChargedWriteResult> {
  if (charge.enforce) {
    const [row] = await run(BUDGET_SQL.lock, [record.projectId, record.runId, charge.currency, event.at]);
    const spent = rowToSpend(row!);
    if (budgetRefusal(spent, charge)) return { written: false, exceeded: spent };
  }
  const written =
    write.op === "insert"
      ? await run(PG_SQL.insertRecordWithEvent, [...recordValues(record), ...eventValues(event)])
      : await run(PG_SQL.updateRecordWithEvent, [...recordValues(record), write.expectedVersion, ...eventValues(event)]);
  if (written.length !== 1) return { written: false, exceeded: null };
  await run(BUDGET_SQL.charge, chargeValues(record, charge, event.at));
  return { written: true };
}
