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
  recordById: `SELECT ${RECORD_COLUMN_LIST} FROM call_records WHERE project_id = $1 AND id = $2`,
  insertRecord: `INSERT INTO call_records (${RECORD_COLUMN_LIST}) VALUES (${placeholders(RECORD_COLUMNS, 1, false)}) ON CONFLICT (project_id, key) DO NOTHING`,
  /** CAS on (project, key, version); params: the record's columns, then expected version. */
  updateRecord: `UPDATE call_records SET ${assignments(RECORD_COLUMNS, 1)} WHERE project_id = $2 AND key = $3 AND version = $${R + 1}`,
  recordReplay: `UPDATE call_records SET replays = replays + 1 WHERE project_id = $1 AND key = $2 AND version = $3 RETURNING replays`,
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
};

/** Postgres-only single-statement forms: the event is inserted only if the record change applied. */
function withEvent(recordStatement: string, eventFrom: number): string {
  return `WITH changed AS (${recordStatement} RETURNING 1) INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT ${placeholders(EVENT_COLUMNS, eventFrom, true)} FROM changed RETURNING 1`;
}

export const PG_SQL = {
  /**
   * A begin's two reads in one statement (record by key, the run's loop steps newest first; see
   * POLICY_SQL.loopHistory): the row's record columns are null when there is no record.
   */
  recordWithHistory: `SELECT ${RECORD_COLUMN_LIST}, (SELECT COALESCE(json_agg(json_build_array(h.id, h.tool, h.args_fingerprint) ORDER BY h.id DESC), '[]'::json)
      FROM (SELECT id, tool, args_fingerprint FROM events WHERE project_id = $1 AND run_id = $3 AND loop_step = 1 ORDER BY id DESC LIMIT $4) h) AS loop_history
    FROM (SELECT 1) AS one LEFT JOIN call_records ON call_records.project_id = $1 AND call_records.key = $2`,
  insertRecordWithEvent: withEvent(SQL.insertRecord, R + 1),
  updateRecordWithEvent: withEvent(SQL.updateRecord, R + 2),
  recordReplayWithEvent: `WITH changed AS (${SQL.recordReplay}) INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT ${placeholders(EVENT_COLUMNS, 4, true)} FROM changed RETURNING (SELECT replays FROM changed) AS replays`,
  /**
   * A batch of decision-only events in one statement, one array per column (a named statement
   * prepared once, whatever the batch's size). Row triggers (rollups, alert signals) fire per row.
   */
  insertEvents: `INSERT INTO events (${EVENT_COLUMN_LIST}) SELECT * FROM unnest(${EVENT_COLUMNS.map(([, , type], i) => `$${i + 1}::${type}[]`).join(", ")}) ON CONFLICT (id) DO NOTHING`,
};

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
