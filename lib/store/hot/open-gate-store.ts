import { parseDatabaseUrl } from "../connection/database-url";
import { createPgPool } from "../connection/pg-pool";
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
  if (target.provider === "postgres") return new PostgresGateStore(createPgPool(target, options.pgPoolSize, options.pgTimeouts), { ledger: options.ledger });
  return new SqliteGateStore(target.file, {
    synchronous: options.sqliteSynchronous,
    writer: options.sqliteWriter,
    busyTimeoutMs: options.sqliteBusyTimeoutMs,
    ledger: options.ledger,
  });
}
