import { DEDUP_HIT_DECISIONS } from "../../../core/rollup-tally";
import { SHADOW_PREVENTED_SQL } from "../../../core/shadow";
import { num } from "../../hot/shared/columns";
import { type RollupPoint, type RollupTotal, type RunPressureRow, type ShadowPreventedRow } from "../../ports/insight-store";

/**
 * Dashboard SQL for both providers. Charts read only event_rollups (range scans of its primary
 * key, which leads with project_id and minute); the one ledger read, top runs, is bounded by a
 * time range and by a LIMIT on the rows it reads.
 */
const DEDUP = DEDUP_HIT_DECISIONS.map((decision) => `'${decision}'`).join(", ");

export const STATS_SQL = {
  /** $4 bucket length in ms; $5 a tool, or '' for every tool. */
  series: `SELECT tool, kind, CAST(minute / $4 AS BIGINT) * $4 AS at, SUM(total) AS total FROM event_rollups
    WHERE project_id = $1 AND minute >= $2 AND minute < $3 AND ($5 = '' OR tool = $5)
    GROUP BY 1, 2, 3 ORDER BY 3, 1, 2`,
  totals: `SELECT tool, kind, SUM(total) AS total, SUM(latency_us) AS latency_us FROM event_rollups
    WHERE project_id = $1 AND minute >= $2 AND minute < $3
    GROUP BY 1, 2`,
  /** The latest $4 begins of the range (backwards along the (project_id, at) index), grouped by run. */
  topRuns: `WITH recent AS (
      SELECT run_id, tool, decision, at FROM events
      WHERE project_id = $1 AND at >= $2 AND at < $3 AND type = 'begin'
      ORDER BY at DESC LIMIT $4
    )
    SELECT run_id, COUNT(*) AS begins,
      SUM(CASE WHEN decision IN (${DEDUP}) THEN 1 ELSE 0 END) AS dedup_hits,
      COUNT(DISTINCT tool) AS tools, MIN(at) AS first_at, MAX(at) AS last_at,
      (SELECT COUNT(*) FROM recent) AS scanned
    FROM recent GROUP BY run_id
    HAVING SUM(CASE WHEN decision IN (${DEDUP}) THEN 1 ELSE 0 END) > 0
    ORDER BY dedup_hits DESC, begins DESC, run_id LIMIT $5`,
  /** Shadow mode: begins the gate answered execute though it would have prevented a duplicate, per tool (along (project_id, at)). */
  shadowPrevented: `SELECT tool, COUNT(*) AS would_prevent FROM events
    WHERE project_id = $1 AND at >= $2 AND at < $3 AND type = 'begin' AND shadow_decision IN (${SHADOW_PREVENTED_SQL})
    GROUP BY tool ORDER BY would_prevent DESC, tool`,
};

type Row = Record<string, unknown>;

export function rowToRollupPoint(row: Row): RollupPoint {
  return { tool: String(row.tool), kind: String(row.kind), at: num(row.at), total: num(row.total) };
}

export function rowToRollupTotal(row: Row): RollupTotal {
  return { tool: String(row.tool), kind: String(row.kind), total: num(row.total), latencyUs: num(row.latency_us) };
}

export function rowToShadowPrevented(row: Row): ShadowPreventedRow {
  return { tool: String(row.tool), wouldPrevent: num(row.would_prevent) };
}

export function rowToRunPressure(row: Row): RunPressureRow {
  return {
    runId: String(row.run_id),
    begins: num(row.begins),
    dedupHits: num(row.dedup_hits),
    tools: num(row.tools),
    firstAt: num(row.first_at),
    lastAt: num(row.last_at),
  };
}
