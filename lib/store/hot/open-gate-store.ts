import { parseDatabaseUrl } from "../connection/database-url";
import { createPgPool } from "../connection/pg-pool";
import type { PgTimeouts } from "../connection/pg-timeouts";
import { PostgresGateStore } from "./postgres/gate-store";
import { type SqliteSynchronous, SqliteGateStore } from "./sqlite/gate-store";
import type { GateStore } from "../ports/gate-store";

export interface OpenStoreOptions {
  databaseUrl?: string;
  sqliteSynchronous?: SqliteSynchronous;
  pgPoolSize?: number;
  sqliteBusyTimeoutMs?: number;
  pgTimeouts?: Partial<PgTimeouts>;
}

export function openStore(options: OpenStoreOptions = {}): GateStore {
  const target = parseDatabaseUrl(options.databaseUrl);
  if (target.provider === "postgres") return new PostgresGateStore(createPgPool(target, options.pgPoolSize, options.pgTimeouts));
  return new SqliteGateStore(target.file, { synchronous: options.sqliteSynchronous, busyTimeoutMs: options.sqliteBusyTimeoutMs });
}
