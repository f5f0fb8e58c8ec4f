import { DEDUP_HIT_DECISIONS } from "../../../core/rollup-tally";
import { num, numOrNull } from "../../hot/shared/columns";
import { type HitCount, type StormRow, type StormStatus, type WindowCounts, type WindowHits } from "../../ports/insight-store";

/**
 * Retry-storm SQL for both providers (numbered placeholders). Casts are spelled CAST(… AS …),
 * which both understand: better-sqlite3 binds every JS number as REAL, so a bucket needs the cast
 * to be a whole number, and Postgres needs the types of INSERT … SELECT parameters.
 */
const DEDUP = DEDUP_HIT_DECISIONS.map((decision) => `'${decision}'`).join(", ");

const STORM_COLUMNS = [
  ["id", "TEXT"],
  ["project_id", "TEXT"],
  ["tool", "TEXT"],
  ["open_tool", "TEXT"],
  ["status", "TEXT"],
  ["window_seconds", "INTEGER"],
  ["baseline", "DOUBLE PRECISION"],
  ["threshold", "DOUBLE PRECISION"],
  ["started_at", "BIGINT"],
  ["last_window_at", "BIGINT"],
  ["ended_at", "BIGINT"],
  ["peak_hits", "INTEGER"],
  ["last_hits", "INTEGER"],
  ["total_hits", "INTEGER"],
  ["quiet_windows", "INTEGER"],
  ["runs_involved", "INTEGER"],
  ["top_keys", "TEXT"],
  ["top_runs", "TEXT"],
  ["policy_version", "INTEGER"],
  ["updated_at", "BIGINT"],
  ["rule", "TEXT"],
  ["opening_window_at", "BIGINT"],
  ["opening_hits", "INTEGER"],
] as const;

const COLUMN_LIST = STORM_COLUMNS.map(([column]) => column).join(", ");
const CAST_VALUES = STORM_COLUMNS.map(([, type], i) => `CAST($${i + 1} AS ${type})`).join(", ");
/** What changes while a storm lasts (Postgres refuses parameters a statement does not use). */
const MUTABLE = ["open_tool", "status", "last_window_at", "ended_at", "peak_hits", "last_hits", "total_hits", "quiet_windows", "runs_involved", "top_keys", "top_runs", "updated_at"] as const;
const MUTABLE_INDEXES = MUTABLE.map((column) => STORM_COLUMNS.findIndex(([c]) => c === column));
const UPDATE_SET = MUTABLE.map((column, i) => `${column} = $${i + 2}`).join(", ");

export const STORM_SQL = {
  hitsFromEvents: `SELECT tool, CAST(at / $4 AS BIGINT) AS bucket, COUNT(*) AS hits FROM events
    WHERE project_id = $1 AND at >= $2 AND at < $3 AND type = 'begin' AND decision IN (${DEDUP})
    GROUP BY 1, 2`,
  countsFromEvents: `SELECT tool, CAST(at / $4 AS BIGINT) AS bucket, COUNT(*) AS begins,
      SUM(CASE WHEN decision IN (${DEDUP}) THEN 1 ELSE 0 END) AS hits FROM events
    WHERE project_id = $1 AND at >= $2 AND at < $3 AND type = 'begin'
    GROUP BY 1, 2`,
  hitsFromRollups: `SELECT tool, CAST(minute / $4 AS BIGINT) AS bucket, SUM(total) AS hits FROM event_rollups
    WHERE project_id = $1 AND minute >= $2 AND minute < $3 AND kind IN (${DEDUP})
    GROUP BY 1, 2`,
  /** $5 caps the hits read, $6 the groups returned; `column` is key or run_id. */
  drivers: (column: "key" | "run_id") => `SELECT name, COUNT(*) AS hits FROM (
      SELECT ${column} AS name FROM events
      WHERE project_id = $1 AND at >= $2 AND at < $3 AND tool = $4 AND type = 'begin' AND decision IN (${DEDUP})
      LIMIT $5
    ) hit GROUP BY name ORDER BY hits DESC, name LIMIT $6`,
  open: `SELECT ${COLUMN_LIST} FROM storms WHERE project_id = $1 AND status = 'open'`,
  watermarks: `SELECT tool, MAX(last_window_at) AS last_window_at FROM storms WHERE project_id = $1 GROUP BY tool`,
  /**
   * The unique (project_id, open_tool) index refuses a second open incident; NOT EXISTS refuses to
   * reopen a window an incident already judged (an instance acting on a read from before it).
   */
  insert: `INSERT INTO storms (${COLUMN_LIST}) SELECT ${CAST_VALUES}
    WHERE NOT EXISTS (SELECT 1 FROM storms WHERE project_id = $2 AND tool = $3 AND last_window_at >= $10)
    ON CONFLICT (project_id, open_tool) DO NOTHING`,
  /** Params: id, the mutable columns, then the expected last_window_at. */
  update: `UPDATE storms SET ${UPDATE_SET} WHERE id = $1 AND status = 'open' AND last_window_at = $${MUTABLE.length + 2}`,
  list: `SELECT ${COLUMN_LIST} FROM storms WHERE project_id = $1 AND ($2 = '' OR status = $2) ORDER BY started_at DESC, id LIMIT $3`,
  one: `SELECT ${COLUMN_LIST} FROM storms WHERE project_id = $1 AND id = $2`,
};

export function stormValues(storm: StormRow): unknown[] {
  return [
    storm.id,
    storm.projectId,
    storm.tool,
    storm.status === "open" ? storm.tool : null,
    storm.status,
    storm.windowSeconds,
    storm.baseline,
    storm.threshold,
    storm.startedAt,
    storm.lastWindowAt,
    storm.endedAt,
    storm.peakHits,
    storm.lastHits,
    storm.totalHits,
    storm.quietWindows,
    storm.runsInvolved,
    JSON.stringify(storm.topKeys),
    JSON.stringify(storm.topRuns),
    storm.policyVersion,
    storm.updatedAt,
    storm.rule,
    storm.openingWindowAt,
    storm.openingHits,
  ];
}

export function stormUpdateValues(storm: StormRow, expectedLastWindowAt: number): unknown[] {
  const values = stormValues(storm);
  return [storm.id, ...MUTABLE_INDEXES.map((index) => values[index]), expectedLastWindowAt];
}

type Row = Record<string, unknown>;

export function rowToStorm(row: Row): StormRow {
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    tool: String(row.tool),
    status: String(row.status) as StormStatus,
    windowSeconds: num(row.window_seconds),
    baseline: num(row.baseline),
    threshold: num(row.threshold),
    startedAt: num(row.started_at),
    lastWindowAt: num(row.last_window_at),
    endedAt: numOrNull(row.ended_at),
    peakHits: num(row.peak_hits),
    lastHits: num(row.last_hits),
    totalHits: num(row.total_hits),
    quietWindows: num(row.quiet_windows),
    runsInvolved: num(row.runs_involved),
    topKeys: JSON.parse(String(row.top_keys)) as HitCount[],
    topRuns: JSON.parse(String(row.top_runs)) as HitCount[],
    policyVersion: num(row.policy_version),
    updatedAt: num(row.updated_at),
    rule: row.rule === "absolute" ? "absolute" : "baseline",
    // Incidents from before these were recorded: opened by their first window, at its peak.
    openingWindowAt: num(row.opening_window_at) || num(row.started_at),
    openingHits: num(row.opening_hits) || num(row.peak_hits),
  };
}

export function rowToWindowCounts(row: Row): WindowCounts {
  return { ...rowToWindowHits(row), begins: num(row.begins) };
}

export function rowToWindowHits(row: Row): WindowHits {
  return { tool: String(row.tool), window: num(row.bucket), hits: num(row.hits) };
}

export function rowToHitCount(row: Row): HitCount {
  return { name: String(row.name), hits: num(row.hits) };
}

export function watermarkMap(rows: Row[]): Map<string, number> {
  return new Map(rows.map((row) => [String(row.tool), num(row.last_window_at)]));
}
