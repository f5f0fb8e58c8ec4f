import { parseDatabaseUrl } from "./database-url";
import { createPgPool } from "./pg-pool";
import { PostgresGateStore } from "./postgres-store";
import { type SqliteSynchronous, SqliteGateStore } from "./sqlite-store";
import type { GateStore } from "./types";

export interface OpenStoreOptions {
  databaseUrl?: string;
  sqliteSynchronous?: SqliteSynchronous;
  pgPoolSize?: number;
  sqliteBusyTimeoutMs?: number;
}

export function openStore(options: OpenStoreOptions = {}): GateStore {
  const target = parseDatabaseUrl(options.databaseUrl);
  if (target.provider === "postgres") return new PostgresGateStore(createPgPool(target, options.pgPoolSize));
  return new SqliteGateStore(target.file, { synchronous: options.sqliteSynchronous, busyTimeoutMs: options.sqliteBusyTimeoutMs });
}
