import pg from "pg";

const DAY = 86_400_000;

export interface RetentionBacklog {
  /** Completed records an hour past their TTL: purgeable. */
  expiredRecords: number;
  /** In-progress records past their TTL whose lease is still live: never purgeable. */
  liveLeaseRecords: number;
  /** Records a day before their TTL: not purgeable yet. */
  unexpiredRecords: number;
  /** Begin events 40 days old (tool `old`): past the event retention, their rollups stay. */
  oldEvents: number;
  /** Begin events 401 days old (tool `ancient`): past the rollup retention too. */
  ancientEvents: number;
  /** A tool whose existing records become purgeable too, marked with version 100. */
  backdateTool?: string;
}

/**
 * Writes a collector's backlog into a Postgres test database in one transaction, so that every
 * collector running against it finds all of it at the same moment. Records are tools `expired`,
 * `leased` and `fresh`; events go through the rollup trigger like the gate's own. A begin that
 * later claims a backdated record in place continues its version (> 100); one that finds it purged
 * inserts a new record (version < 100). Returns the rollup rows of the `ancient` tool.
 */
export async function seedRetentionBacklog(databaseUrl: string, projectId: string, backlog: RetentionBacklog): Promise<number> {
  const now = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const records = (tool: string, state: string, count: number, expiresAt: number, leaseExpiresAt: number | null) =>
    client.query(
      `INSERT INTO call_records (id, project_id, key, tool, run_id, strategy, args_fingerprint, state, attempt, lease_token,
         lease_expires_at, first_seen_at, expires_at, updated_at)
       SELECT 'call_' || $6::text || '_' || i, $1, $6::text || '_' || i, $6::text, 'run_' || $6::text || '_' || (i % 97), 'step', 'fp', $2, 1,
         CASE WHEN $4::bigint IS NULL THEN NULL ELSE 'lease_' || i END, $4::bigint, $5::bigint, $3::bigint + i, $5::bigint
       FROM generate_series(1, $7::int) AS i`,
      [projectId, state, expiresAt, leaseExpiresAt, now - 2 * DAY, tool, count],
    );
  const events = (tool: string, from: number, count: number) =>
    client.query(
      `INSERT INTO events (id, project_id, key, tool, run_id, type, decision, attempt, latency_us, at)
       SELECT 'evt_' || $3::text || '_' || lpad(i::text, 7, '0'), $1, 'key_' || (i % 7), $3::text, 'run_' || (i % 3), 'begin',
         CASE WHEN i % 4 = 0 THEN 'execute' ELSE 'replay' END, 1, 100, $2::bigint + i * 10
       FROM generate_series(1, $4::int) AS i`,
      [projectId, from, tool, count],
    );
  try {
    await client.query("BEGIN");
    await records("expired", "succeeded", backlog.expiredRecords, now - 3_600_000, null);
    await records("leased", "in_progress", backlog.liveLeaseRecords, now - 3_600_000, now + 3_600_000);
    await records("fresh", "succeeded", backlog.unexpiredRecords, now + DAY, null);
    await events("old", now - 40 * DAY, backlog.oldEvents);
    await events("ancient", now - 401 * DAY, backlog.ancientEvents);
    if (backlog.backdateTool) {
      await client.query(`UPDATE call_records SET expires_at = $2, version = 100 WHERE project_id = $1 AND tool = $3`, [
        projectId,
        now - 60_000,
        backlog.backdateTool,
      ]);
    }
    const { rows } = await client.query(`SELECT COUNT(*) AS n FROM event_rollups WHERE project_id = $1 AND tool = 'ancient'`, [projectId]);
    await client.query("COMMIT");
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}
