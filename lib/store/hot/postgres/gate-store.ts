import type pg from "pg";
import type { CallRecord } from "../../../core/record";
import { type BudgetCharge, type RunSpend, budgetRefusal } from "../../../core/budget";
import { chargeValues, eventValues, recordValues, rowToApiKey, rowToEvent, rowToRecord, rowToSpend } from "../shared/columns";
import type { CallSignature } from "../../../core/loop-detector";
import {
  PG_POLICY_WRITE,
  POLICY_SQL,
  pgPolicyWriteValues,
  rowToPolicy,
  rowToSignature,
  rowToTraffic,
} from "../shared/policy-statements";
import type { PolicyRow, PolicyWrite, SimulationLedgerRows, ToolTrafficRow } from "../../ports/policy-store";
import { readSimulationLedger } from "../shared/simulation-statements";
import { BUDGET_SQL, PG_SQL, SQL } from "../shared/statements";
import {
  type ApiKeyRow,
  type ChargedWrite,
  type ChargedWriteResult,
  type GateEvent,
  type GateStore,
  type ProjectRow,
  StoreUnavailableError,
} from "../../ports/gate-store";
import { isPgUnavailable } from "../../connection/pg-errors";

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

  constructor(private readonly pool: pg.Pool) {}

  private async rows(text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    return this.withClient(async (client) => (await client.query({ name: nameOf(text), text, values })).rows);
  }

  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
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

  async recordReplay(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<number | null> {
    const [row] = await this.rows(PG_SQL.recordReplayWithEvent, [
      record.projectId,
      record.key,
      expectedVersion,
      ...eventValues(event),
    ]);
    return row ? Number(row.replays) : null;
  }

  async appendEvent(event: GateEvent): Promise<void> {
    await this.rows(SQL.insertEvent, eventValues(event));
  }

  async listEventsForCall(projectId: string, callId: string): Promise<GateEvent[]> {
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

  async touchApiKey(id: string, at: number): Promise<void> {
    await this.rows(SQL.touchApiKey, [id, at]);
  }

  async findPolicyLayers(projectId: string, tool: string): Promise<PolicyRow[]> {
    return (await this.rows(POLICY_SQL.layers, [projectId, tool])).map(rowToPolicy);
  }

  async discoverTool(projectId: string, tool: string, at: number): Promise<void> {
    await this.rows(POLICY_SQL.discover, [projectId, tool, at]);
  }

  async loopHistory(projectId: string, runId: string, limit: number): Promise<CallSignature[]> {
    return (await this.rows(POLICY_SQL.loopHistory, [projectId, runId, limit])).map(rowToSignature);
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
    return (await this.rows(POLICY_SQL.traffic, [projectId, since])).map(rowToTraffic);
  }

  simulationLedger(projectId: string, tool: string, sampleSize: number): Promise<SimulationLedgerRows> {
    return readSimulationLedger((text, params) => this.rows(text, params), projectId, tool, sampleSize);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
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
