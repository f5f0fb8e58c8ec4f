import { parseDatabaseUrl } from "../connection/database-url";
import { DEFAULT_PG_POOL_SIZE, createPgPool, createRelaxedPgPool } from "../connection/pg-pool";
import type { PgTimeouts } from "../connection/pg-timeouts";
import { PostgresGateStore } from "./postgres/gate-store";
import { type SqliteSynchronous, type SqliteWriter, SqliteGateStore } from "./sqlite/gate-store";
import type { GateStore } from "../ports/gate-store";
import type { WriteBehindOptions } from "./shared/ledger-write-behind";

export interface OpenStoreOptions {
  databaseUrl?: string;
  sqliteSynchronous?: SqliteSynchronous;
  /** Where SQLite writes commit: the request thread (inline, default) or a writer thread (worker). */
  sqliteWriter?: SqliteWriter;
  pgPoolSize?: number;
  sqliteBusyTimeoutMs?: number;
  pgTimeouts?: Partial<PgTimeouts>;
  /** Bounds of the write-behind ledger of decision-only events (defaults: WRITE_BEHIND_DEFAULTS). */
  ledger?: WriteBehindOptions;
}

export function openStore(options: OpenStoreOptions = {}): GateStore {
  const target = parseDatabaseUrl(options.databaseUrl);
  if (target.provider === "postgres") {
    const size = options.pgPoolSize ?? DEFAULT_PG_POOL_SIZE;
    return new PostgresGateStore(createPgPool(target, size, options.pgTimeouts), {
      ledger: options.ledger,
      relaxed: createRelaxedPgPool(target, Math.max(2, Math.ceil(size / 2)), options.pgTimeouts),
    });
  }
  return new SqliteGateStore(target.file, {
    synchronous: options.sqliteSynchronous,
    writer: options.sqliteWriter,
    busyTimeoutMs: options.sqliteBusyTimeoutMs,
    ledger: options.ledger,
  });
}
