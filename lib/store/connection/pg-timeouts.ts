/**
 * How long a Postgres pool waits before giving up, so a held lock, a slow statement or a pool with
 * no free connection becomes the retryable 503 `store_unavailable` in seconds, not a stall the
 * agent's own HTTP timeout cuts (a begin once waited 39 s behind a table lock, holding its
 * connection, until all ten were pinned).
 */
export interface PgTimeouts {
  /** Waiting for a free pooled connection, or for a new one to be established. */
  connectMs: number;
  /** Waiting for any one lock (Postgres `lock_timeout`). */
  lockMs: number;
  /** Any one statement, lock waits included (Postgres `statement_timeout`). */
  statementMs: number;
}

/** Well under an agent's HTTP timeout (the SDK's is 15 s), with room for a begin's few statements. */
export const DEFAULT_PG_TIMEOUTS: PgTimeouts = { connectMs: 3_000, lockMs: 2_000, statementMs: 5_000 };

/** The pg pool settings for these timeouts (statement and lock timeouts travel as startup parameters). */
export function pgTimeoutSettings(timeouts: Partial<PgTimeouts> = {}) {
  const { connectMs, lockMs, statementMs } = { ...DEFAULT_PG_TIMEOUTS, ...timeouts };
  return { connectionTimeoutMillis: connectMs, lock_timeout: lockMs, statement_timeout: statementMs };
}
