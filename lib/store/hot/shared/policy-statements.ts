import type { CallSignature } from "../../../core/loop-detector";
import { SHADOW_PREVENTED_SQL } from "../../../core/shadow";
import { num, numOrNull, strOrNull } from "./columns";
import type { PolicyRow, PolicyWrite, ToolTrafficRow } from "../../ports/policy-store";

/**
 * Policy SQL, written once with numbered placeholders for both providers. The two hot reads
 * (layers, loop history) are single indexed lookups; everything else serves operators.
 */
const POLICY_COLUMNS = `tool, overrides, version, first_seen_at, updated_at, updated_by`;
const REVISION_COLUMNS = `id, project_id, tool, version, author, reason, at, "before", "after", restored_from`;

export const POLICY_SQL = {
  layers: `SELECT ${POLICY_COLUMNS} FROM tool_policies WHERE project_id = $1 AND tool IN ($2, '*')`,
  /** Sets first_seen_at once, also on a tool configured before it was ever called. */
  discover: `INSERT INTO tool_policies (project_id, tool, overrides, version, first_seen_at) VALUES ($1, $2, NULL, 0, $3)
    ON CONFLICT (project_id, tool) DO UPDATE SET first_seen_at = excluded.first_seen_at WHERE tool_policies.first_seen_at IS NULL`,
  loopHistory: `SELECT id, tool, args_fingerprint FROM events WHERE project_id = $1 AND run_id = $2 AND loop_step = 1 ORDER BY id DESC LIMIT $3`,
  projectExists: `SELECT 1 AS found FROM projects WHERE id = $1`,
  traffic: `SELECT tool, COUNT(*) AS calls,
      SUM(CASE WHEN decision IN ('execute', 'verify') THEN 1 ELSE 0 END) AS executions,
      SUM(CASE WHEN decision = 'replay' THEN 1 ELSE 0 END) AS replays,
      SUM(CASE WHEN decision IN ('replay', 'in_progress', 'refused') THEN 1 ELSE 0 END) AS dedup_hits,
      SUM(CASE WHEN shadow_decision IN (${SHADOW_PREVENTED_SQL}) THEN 1 ELSE 0 END) AS would_prevent
    FROM events WHERE project_id = $1 AND type = 'begin' AND at >= $2 GROUP BY tool`,
  // SQLite runs the write as these steps inside one immediate transaction.
  layerVersion: `SELECT version FROM tool_policies WHERE project_id = $1 AND tool = $2`,
  nextRevision: `SELECT COALESCE(MAX(version), 0) + 1 AS next FROM policy_revisions WHERE project_id = $1`,
  upsertLayer: `INSERT INTO tool_policies (project_id, tool, overrides, version, first_seen_at, updated_at, updated_by)
    VALUES ($1, $2, $3, $4, NULL, $5, $6)
    ON CONFLICT (project_id, tool) DO UPDATE SET overrides = excluded.overrides, version = excluded.version,
      updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
  insertRevision: `INSERT INTO policy_revisions (${REVISION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
};

/**
 * Postgres: the same write as one statement. The next revision number is MAX + 1, so two writers
 * in one project can collide on (project_id, version): the unique index fails the whole statement
 * and the store retries it. The layer changes only if it is still at the expected version.
 * Params: $1 project, $2 tool, $3 overrides, $4 at, $5 author, $6 expected version, $7 revision id,
 * $8 reason, $9 before, $10 restored from.
 */
export const PG_POLICY_WRITE = `WITH next AS (
    SELECT COALESCE(MAX(version), 0) + 1 AS v FROM policy_revisions WHERE project_id = $1::text
  ), layer AS (
    INSERT INTO tool_policies (project_id, tool, overrides, version, first_seen_at, updated_at, updated_by)
    SELECT $1::text, $2::text, $3::text, next.v, NULL, $4::bigint, $5::text FROM next
    WHERE $6::int = 0 OR EXISTS (SELECT 1 FROM tool_policies WHERE project_id = $1::text AND tool = $2::text)
    ON CONFLICT (project_id, tool) DO UPDATE SET overrides = excluded.overrides, version = excluded.version,
      updated_at = excluded.updated_at, updated_by = excluded.updated_by
    WHERE tool_policies.version = $6::int
    RETURNING version
  )
  INSERT INTO policy_revisions (${REVISION_COLUMNS})
  SELECT $7::text, $1::text, $2::text, layer.version, $5::text, $8::text, $4::bigint, $9::text, $3::text, $10::int FROM layer
  RETURNING version`;

export function pgPolicyWriteValues(w: PolicyWrite): unknown[] {
  return [w.projectId, w.tool, w.overrides, w.at, w.author, w.expectedVersion, w.revisionId, w.reason, w.before, w.restoredFrom];
}

export function revisionValues(w: PolicyWrite, version: number): unknown[] {
  return [w.revisionId, w.projectId, w.tool, version, w.author, w.reason, w.at, w.before, w.overrides, w.restoredFrom];
}

type Row = Record<string, unknown>;

export function rowToPolicy(row: Row): PolicyRow {
  return {
    tool: String(row.tool),
    overrides: strOrNull(row.overrides),
    version: num(row.version),
    firstSeenAt: numOrNull(row.first_seen_at),
    updatedAt: numOrNull(row.updated_at),
    updatedBy: strOrNull(row.updated_by),
  };
}

/** With the event's id: the loop detector merges the steps read with those still held in memory (ledger-write-behind.ts). */
/**
 * What a tool's policy is made of, as a string: the versions of the `*` layer and the tool's own
 * (-1: absent) and whether the tool is known. Versions are project-wide revisions that never name
 * two contents, so an equal stamp is an equal policy. PG_SQL.beginStatement computes the same in SQL.
 */
export function policyStamp(rows: readonly PolicyRow[], tool: string): string {
  const project = rows.find((row) => row.tool === "*");
  const own = rows.find((row) => row.tool === tool);
  return `${project?.version ?? -1}:${own?.version ?? -1}:${own?.firstSeenAt != null ? 1 : 0}`;
}

/** A layer as PG_SQL.beginStatement returns it: [tool, overrides, version, first_seen_at, updated_at, updated_by]. */
export function tupleToPolicy([tool, overrides, version, firstSeenAt, updatedAt, updatedBy]: unknown[]): PolicyRow {
  return rowToPolicy({ tool, overrides, version, first_seen_at: firstSeenAt, updated_at: updatedAt, updated_by: updatedBy });
}

export function rowToSignature(row: Row): CallSignature & { id: string } {
  return { id: String(row.id), tool: String(row.tool), argsFingerprint: String(row.args_fingerprint) };
}

export function rowToTraffic(row: Row): ToolTrafficRow {
  return { tool: String(row.tool), calls: num(row.calls), executions: num(row.executions), replays: num(row.replays), dedupHits: num(row.dedup_hits ?? 0), wouldPrevent: num(row.would_prevent ?? 0) };
}
