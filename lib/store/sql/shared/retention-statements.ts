/**
 * Retention deletes, one bounded batch per statement: each picks at most $limit rows by primary
 * key and deletes them, so no statement holds locks for long and any number of collectors can run
 * at once — a row two of them pick is deleted once, the other's delete finds nothing. Postgres
 * collectors also skip rows another one has locked (SKIP LOCKED) instead of waiting for them.
 *
 * A record past its TTL is kept while its lease is live (an attempt still running on a short-TTL
 * key); the outer WHERE repeats the conditions so a record re-claimed between the pick and the
 * delete survives.
 */
const RECORD_PURGEABLE = `expires_at < $1 AND (state <> 'in_progress' OR lease_expires_at IS NULL OR lease_expires_at <= $1)`;

function statements(lock: string) {
  return {
    projectIds: `SELECT id FROM projects ORDER BY id`,
    records: `DELETE FROM call_records WHERE id IN (
        SELECT id FROM call_records WHERE ${RECORD_PURGEABLE} LIMIT $2${lock}
      ) AND ${RECORD_PURGEABLE}`,
    /** Per project: the (project_id, at) index serves the range; no index on `at` alone slows the hot path. */
    events: `DELETE FROM events WHERE id IN (
        SELECT id FROM events WHERE project_id = $1 AND at < $2 LIMIT $3${lock}
      )`,
    rollups: `DELETE FROM event_rollups WHERE (project_id, minute, tool, kind) IN (
        SELECT project_id, minute, tool, kind FROM event_rollups WHERE minute < $1 LIMIT $2${lock}
      )`,
    storms: `DELETE FROM storms WHERE id IN (
        SELECT id FROM storms WHERE status = 'closed' AND ended_at < $1 LIMIT $2${lock}
      ) AND status = 'closed'`,
  };
}

export const RETENTION_SQL = statements("");
export const PG_RETENTION_SQL = statements(" FOR UPDATE SKIP LOCKED");
