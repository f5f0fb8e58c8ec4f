import { parseDatabaseUrl } from "../connection/database-url";
import type { InsightStore } from "../ports/insight-store";
import { PostgresInsightStore } from "./postgres/insight-store";
import { SqliteInsightStore } from "./sqlite/insight-store";
import { createPgPool } from "../connection/pg-pool";
import type { PgTimeouts } from "../connection/pg-timeouts";

export interface OpenInsightStoreOptions {
  databaseUrl?: string;
  sqliteSynchronous?: "full" | "normal";
  sqliteBusyTimeoutMs?: number;
  /** Background work and charts need few connections; the hot path keeps its own pool. */
  pgPoolSize?: number;
  pgTimeouts?: Partial<PgTimeouts>;
}

export function openInsightStore(options: OpenInsightStoreOptions = {}): InsightStore {
  const target = parseDatabaseUrl(options.databaseUrl);
  if (target.provider === "postgres") return new PostgresInsightStore(createPgPool(target, options.pgPoolSize ?? 3, options.pgTimeouts));
  return new SqliteInsightStore(target.file, { synchronous: options.sqliteSynchronous, busyTimeoutMs: options.sqliteBusyTimeoutMs });
}
