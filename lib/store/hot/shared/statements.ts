import {
  EVENT_COLUMNS,
  EVENT_COLUMN_LIST,
  RECORD_COLUMNS,
  RECORD_COLUMN_LIST,
  assignments,
  placeholders,
} from "./columns";

/**
 * The hot-path SQL, written once with numbered placeholders for both providers. Postgres folds a
 * record change and its event into one statement (data-modifying CTE); SQLite, which has none,
 * runs the same two statements inside one immediate transaction.
 */
const R = RECORD_COLUMNS.length;

export const SQL = {
  recordByKey: `SELECT ${RECORD_COLUMN_LIST} FROM call_records WHERE project_id = $1 AND key = $2`,
  runAborted: `SELECT 1 AS aborted FROM run_aborts WHERE project_id = $1 AND run_id = $2`,
  recordById: `SELECT ${RECORD_COLUMN_LIST} FROM call_records WHERE project_id = $1 AND id = $2`,
  insertRecord: `INSERT INTO call_records (${RECORD_COLUMN_LIST}) VALUES (${placeholders(RECORD_COLUMNS, 1, false)}) ON CONFLICT (project_id, key) DO NOTHING`,
  /** CAS on (project, key, version); params: the record's columns, then expected version. */
  updateRecord: `UPDATE call_records SET ${assignments(RECORD_COLUMNS, 1)} WHERE project_id = $2 AND key = $3 AND version = $${R + 1}`,
  /**
   * A replay's counter, guarded on the record's id as well as its version: a record a process
   * cached (begin-reads.ts) may have been purged and its key claimed again, by a new record whose
   * version numbering starts over; ids are never reused, so only the very record it replays matches.
   */
  recordReplay: `UPDATE call_records SET replays = replays + 1 WHERE project_id = $1 AND key = $2 AND version = $3 AND id = $4 RETURNING replays`,
  insertEvent: `INSERT INTO events (${EVENT_COLUMN_LIST}) VALUES (${placeholders(EVENT_COLUMNS, 1, false)})`,
  /** The write-behind ledger's insert: a batch whose commit was in doubt is written again, harmlessly. */
  insertEventOnce: `INSERT INTO events (${EVENT_COLUMN_LIST}) VALUES (${placeholders(EVENT_COLUMNS, 1, false)}) ON CONFLICT (id) DO NOTHING`,
  eventsForCall: `SELECT ${EVENT_COLUMN_LIST} FROM events WHERE project_id = $1 AND call_id = $2 ORDER BY id`,
  insertProject: `INSERT INTO projects (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
  insertApiKey: `INSERT INTO api_keys (id, project_id, name, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
  apiKeyByHash: `SELECT id, project_id, name, prefix, hash, created_at, last_used_at, revoked_at FROM api_keys WHERE hash = $1`,
  touchApiKey: `UPDATE api_keys SET last_used_at = $2 WHERE id = $1`,
  insertInstallSecret: `INSERT INTO install_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
  installSecret: `SELECT value FROM install_secrets WHERE name = $1`,
  /** Served by the (project_id, pattern) unique index: the allowlist read on every outbound call. */
  allowPatterns: `SELECT pattern FROM outbound_allowlist WHERE project_id = $1 ORDER BY pattern`,
};

/** Postgres-only single-statement forms: the event is inserted only if the record change applied. */
function withEvent(recordStatement: string, eventFrom: number): string {
  return `WITH changed AS (${recordStatement} RETURNING 1) INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT ${placeholders(EVENT_COLUMNS, eventFrom, true)} FROM changed RETURNING 1`;
}

export const PG_SQL = {
  /**
   * A begin's reads in one statement (record by key, the run's loop steps newest first, see
   * POLICY_SQL.loopHistory; whether the run was aborted): the record columns are null when there is no record.
   */
  recordWithHistory: `SELECT ${RECORD_COLUMN_LIST}, (SELECT COALESCE(json_agg(json_build_array(h.id, h.tool, h.args_fingerprint) ORDER BY h.id DESC), '[]'::json)
      FROM (SELECT id, tool, args_fingerprint FROM events WHERE project_id = $1 AND run_id = $3 AND loop_step = 1 ORDER BY id DESC LIMIT $4) h) AS loop_history,
      EXISTS (SELECT 1 FROM run_aborts WHERE project_id = $1 AND run_id = $3) AS run_aborted
    FROM (SELECT 1) AS one LEFT JOIN call_records ON call_records.project_id = $1 AND call_records.key = $2`,
  beginStatement: beginStatement(),
  insertRecordWithEvent: withEvent(SQL.insertRecord, R + 1),
  guardedUpdate: guardedUpdate(),
  updateRecordWithEvent: withEvent(SQL.updateRecord, R + 2),
  recordReplayWithEvent: `WITH changed AS (${SQL.recordReplay}) INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT ${placeholders(EVENT_COLUMNS, 5, true)} FROM changed RETURNING (SELECT replays FROM changed) AS replays`,
  /**
   * A batch of decision-only events in one statement, one array per column (a named statement
   * prepared once, whatever the batch's size). Row triggers (rollups, alert signals) fire per row.
   */
  insertEvents: `INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT * FROM unnest(${EVENT_COLUMNS.map(([, , type], i) => `$${i + 1}::${type}[]`).join(", ")}) ON CONFLICT (id) DO NOTHING`,
};

/** The CTE `layers`: a tool's policy layers (POLICY_SQL.layers). */
function layersOf(project: string, tool: string): string {
  return `layers AS (SELECT tool, overrides, version, first_seen_at, updated_at, updated_by FROM tool_policies WHERE project_id = ${project} AND tool IN (${tool}, '*'))`;
}

/** policyStamp (policy-statements.ts) of the CTE `layers`, in SQL. */
function stampOf(tool: string): string {
  return `(SELECT COALESCE(MAX(version) FILTER (WHERE tool = '*'), -1)::text || ':' || COALESCE(MAX(version) FILTER (WHERE tool = ${tool}), -1)::text || ':' || (CASE WHEN bool_or(tool = ${tool} AND first_seen_at IS NOT NULL) THEN '1' ELSE '0' END) FROM layers)`;
}

/** The CTE `layers` as one JSON array of [tool, overrides, version, first_seen_at, updated_at, updated_by]. */
function layersJson(): string {
  return `(SELECT COALESCE(json_agg(json_build_array(l.tool, l.overrides, l.version, l.first_seen_at, l.updated_at, l.updated_by)), '[]'::json) FROM layers l)`;
}

/**
 * A complete's compare-and-set and its event, written only while the tool's policy is still the
 * one the complete was planned under (its stamp), with the layers read in the same statement so a
 * changed policy is planned again without another read. Params: the record's columns, the
 * expected version, the event's columns, then the stamp.
 */
function guardedUpdate(): string {
  const stampParam = `$${R + 2 + EVENT_COLUMNS.length}::text`;
  return `WITH ${layersOf("$2::text", "$4::text")},
    changed AS (UPDATE call_records SET ${assignments(RECORD_COLUMNS, 1)} WHERE project_id = $2 AND key = $3 AND version = $${R + 1} AND ${stampParam} = ${stampOf("$4::text")} RETURNING 1),
    logged AS (INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT ${placeholders(EVENT_COLUMNS, R + 2, true)} FROM changed RETURNING 1)
  SELECT (SELECT COUNT(*) FROM logged)::int AS written, ${layersJson()} AS layers`;
}

/**
 * A begin's reads (the record, the run's loop steps, whether the run was aborted) and its guarded claim in one statement (ports/gate-store.ts, BeginStatement).
 * Params: $1 project, $2 tool, $3 key, $4 run, $5 history limit, $6 claim?, $7 policy stamp (null:
 * not guarded), $8 args fingerprint, $9 legacy key, then the record's columns and the event's. The
 * stamp is what policyStamp (policy-statements.ts) computes from the same layers. The final SELECT
 * sees the database as the statement began: never the claim it wrote.
 */
function beginStatement(): string {
  const recordFrom = 10;
  const eventFrom = recordFrom + R;
  return `WITH ${layersOf("$1::text", "$2::text")},
    hist AS (SELECT id, tool, args_fingerprint FROM events WHERE project_id = $1::text AND run_id = $4::text AND loop_step = 1 ORDER BY id DESC LIMIT $5::int),
    claimed AS (
      INSERT INTO call_records (${RECORD_COLUMN_LIST}) SELECT ${placeholders(RECORD_COLUMNS, recordFrom, true)}
      WHERE $6::boolean
        AND ($7::text IS NULL OR $7::text = ${stampOf("$2::text")})
        AND NOT EXISTS (SELECT 1 FROM hist WHERE hist.tool = $2::text AND hist.args_fingerprint = $8::text)
        AND NOT EXISTS (SELECT 1 FROM call_records WHERE project_id = $1::text AND key = $9::text)
        AND NOT EXISTS (SELECT 1 FROM run_aborts WHERE project_id = $1::text AND run_id = $4::text)
      ON CONFLICT (project_id, key) DO NOTHING RETURNING 1),
    logged AS (INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT ${placeholders(EVENT_COLUMNS, eventFrom, true)} FROM claimed RETURNING 1)
  SELECT (SELECT COUNT(*) FROM logged)::int AS claimed, ${RECORD_COLUMNS.map(([c]) => `r."${c}"`).join(", ")},
    (SELECT COALESCE(json_agg(json_build_array(h.id, h.tool, h.args_fingerprint) ORDER BY h.id DESC), '[]'::json) FROM hist h) AS loop_history,
    ${layersJson()} AS layers,
    EXISTS (SELECT 1 FROM run_aborts WHERE project_id = $1::text AND run_id = $4::text) AS run_aborted
  FROM (SELECT 1) AS one LEFT JOIN call_records r ON r.project_id = $1::text AND r.key = $3::text`;
}

/** better-sqlite3 numbers its parameters `?1`, `?2`, … */
export function toSqliteParams(sql: string): string {
  return sql.replace(/\$(\d+)/g, "?$1");
}

/**
 * Budgets (core/budget.ts): a run's counter row. `lock` creates it if absent and, on Postgres,
 * holds its row lock until the transaction ends, so concurrent claims of one run check in turn.
 */
export const BUDGET_SQL = {
  spend: `SELECT calls, cost_micros, currency, max_calls, max_cost_micros FROM run_budgets WHERE project_id = $1 AND run_id = $2`,
  lock: `INSERT INTO run_budgets (project_id, run_id, calls, cost_micros, currency, updated_at) VALUES ($1, $2, 0, 0, $3, $4) ON CONFLICT (project_id, run_id) DO UPDATE SET updated_at = EXCLUDED.updated_at RETURNING calls, cost_micros, currency, max_calls, max_cost_micros`,
  charge: `INSERT INTO run_budgets (project_id, run_id, calls, cost_micros, currency, updated_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (project_id, run_id) DO UPDATE SET calls = run_budgets.calls + EXCLUDED.calls, cost_micros = run_budgets.cost_micros + EXCLUDED.cost_micros, updated_at = EXCLUDED.updated_at`,
};
