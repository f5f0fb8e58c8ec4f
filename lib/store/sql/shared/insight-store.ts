import type {
  HitCount,
  InsightStore,
  RollupPoint,
  RollupTotal,
  RunPressureRow,
  ShadowPreventedRow,
  StormRow,
  StormStatus,
  WindowCounts,
  WindowHits,
} from "../../ports/insight-store";
import type { RETENTION_SQL } from "./retention-statements";
import { STATS_SQL, rowToRollupPoint, rowToRollupTotal, rowToRunPressure, rowToShadowPrevented } from "./stats-statements";
import { STORM_SQL, rowToHitCount, rowToStorm, rowToWindowCounts, rowToWindowHits, stormUpdateValues, stormValues, watermarkMap } from "./storm-statements";

export type Row = Record<string, unknown>;

/**
 * The insight store written once over two primitives — read rows, count changed rows — that each
 * provider implements; the SQL is shared (the retention set differs: Postgres skips locked rows).
 */
export abstract class SqlInsightStore implements InsightStore {
  abstract readonly provider: "sqlite" | "postgres";
  protected abstract readonly retention: typeof RETENTION_SQL;
  protected abstract all(sql: string, values: unknown[]): Promise<Row[]>;
  protected abstract changes(sql: string, values: unknown[]): Promise<number>;
  abstract close(): Promise<void>;

  async listProjectIds(): Promise<string[]> {
    return (await this.all(this.retention.projectIds, [])).map((row) => String(row.id));
  }

  async liveLeases(now: number): Promise<{ projectId: string; leases: number }[]> {
    const rows = await this.all(
      `SELECT project_id, COUNT(*) AS leases FROM call_records WHERE state = 'in_progress' AND lease_expires_at > $1 GROUP BY project_id`,
      [now],
    );
    return rows.map((row) => ({ projectId: String(row.project_id), leases: Number(row.leases) }));
  }

  purgeExpiredRecords(now: number, limit: number): Promise<number> {
    return this.changes(this.retention.records, [now, limit]);
  }

  purgeEvents(projectId: string, before: number, limit: number): Promise<number> {
    return this.changes(this.retention.events, [projectId, before, limit]);
  }

  purgeRollups(before: number, limit: number): Promise<number> {
    return this.changes(this.retention.rollups, [before, limit]);
  }

  purgeClosedStorms(before: number, limit: number): Promise<number> {
    return this.changes(this.retention.storms, [before, limit]);
  }

  async windowCounts(projectId: string, bucketMs: number, from: number, to: number): Promise<WindowCounts[]> {
    return (await this.all(STORM_SQL.countsFromEvents, [projectId, from, to, bucketMs])).map(rowToWindowCounts);
  }

  async dedupHitsFromEvents(projectId: string, windowMs: number, from: number, to: number): Promise<WindowHits[]> {
    return (await this.all(STORM_SQL.hitsFromEvents, [projectId, from, to, windowMs])).map(rowToWindowHits);
  }

  async dedupHitsFromRollups(projectId: string, windowMs: number, from: number, to: number): Promise<WindowHits[]> {
    return (await this.all(STORM_SQL.hitsFromRollups, [projectId, from, to, windowMs])).map(rowToWindowHits);
  }

  async hitDrivers(projectId: string, tool: string, from: number, to: number, scanLimit: number, limits: { keys: number; runs: number }) {
    const read = async (column: "key" | "run_id", limit: number): Promise<HitCount[]> =>
      (await this.all(STORM_SQL.drivers(column), [projectId, from, to, tool, scanLimit, limit])).map(rowToHitCount);
    return { keys: await read("key", limits.keys), runs: await read("run_id", limits.runs) };
  }

  async openStorms(projectId: string): Promise<StormRow[]> {
    return (await this.all(STORM_SQL.open, [projectId])).map(rowToStorm);
  }

  async stormWatermarks(projectId: string): Promise<Map<string, number>> {
    return watermarkMap(await this.all(STORM_SQL.watermarks, [projectId]));
  }

  async insertStorm(storm: StormRow): Promise<boolean> {
    return (await this.changes(STORM_SQL.insert, stormValues(storm))) === 1;
  }

  async updateStorm(storm: StormRow, expectedLastWindowAt: number): Promise<boolean> {
    return (await this.changes(STORM_SQL.update, stormUpdateValues(storm, expectedLastWindowAt))) === 1;
  }

  async listStorms(projectId: string, status: StormStatus | null, limit: number): Promise<StormRow[]> {
    return (await this.all(STORM_SQL.list, [projectId, status ?? "", limit])).map(rowToStorm);
  }

  async findStorm(projectId: string, id: string): Promise<StormRow | null> {
    const [row] = await this.all(STORM_SQL.one, [projectId, id]);
    return row ? rowToStorm(row) : null;
  }

  async rollupSeries(projectId: string, from: number, to: number, bucketMs: number, tool: string | null): Promise<RollupPoint[]> {
    return (await this.all(STATS_SQL.series, [projectId, from, to, bucketMs, tool ?? ""])).map(rowToRollupPoint);
  }

  async rollupTotals(projectId: string, from: number, to: number): Promise<RollupTotal[]> {
    return (await this.all(STATS_SQL.totals, [projectId, from, to])).map(rowToRollupTotal);
  }

  async shadowPrevented(projectId: string, from: number, to: number): Promise<ShadowPreventedRow[]> {
    return (await this.all(STATS_SQL.shadowPrevented, [projectId, from, to])).map(rowToShadowPrevented);
  }

  async topRuns(projectId: string, from: number, to: number, scanLimit: number, limit: number): Promise<{ runs: RunPressureRow[]; scanned: number }> {
    const rows = await this.all(STATS_SQL.topRuns, [projectId, from, to, scanLimit, limit]);
    return { runs: rows.map(rowToRunPressure), scanned: rows.length > 0 ? Number(rows[0]!.scanned) : 0 };
  }
}
