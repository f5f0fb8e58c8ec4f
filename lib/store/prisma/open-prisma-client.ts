import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { parseDatabaseUrl } from "../connection/database-url";
import { type PgTimeouts, pgTimeoutSettings } from "../connection/pg-timeouts";
import { PrismaClient as PostgresPrismaClient } from "../generated/postgres/client";
import { PrismaClient as SqlitePrismaClient } from "../generated/sqlite/client";

/**
 * The Prisma Client for off-hot-path CRUD (upstreams, MCP sessions). Both generated clients share
 * one model API for plain CRUD; repositories are written against the SQLite client's types.
 */
export type AppPrismaClient = SqlitePrismaClient;

export function openPrismaClient(databaseUrl: string, options: { pgPoolSize?: number; sqliteBusyTimeoutMs?: number; pgTimeouts?: Partial<PgTimeouts> } = {}): AppPrismaClient {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.provider === "postgres") {
    // Prisma's adapter parses its own column types, so it gets a plain config, not our int8 pool.
    const { host, port, user, password, database } = target;
    const adapter = new PrismaPg({ host, port, user, password, database, max: options.pgPoolSize ?? 3, allowExitOnIdle: true, ...pgTimeoutSettings(options.pgTimeouts) });
    return new PostgresPrismaClient({ adapter }) as unknown as AppPrismaClient;
  }
  return new SqlitePrismaClient({ adapter: new PrismaBetterSQLite3({ url: `file:${target.file}`, timeout: options.sqliteBusyTimeoutMs ?? 5_000 }) });
}
