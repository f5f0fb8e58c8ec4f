import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { type DatabaseTarget, parseDatabaseUrl } from "../connection/database-url";
import { pgClientConfig } from "../connection/pg-pool";
import { type PgTimeouts, pgTimeoutSettings } from "../connection/pg-timeouts";
import { PrismaClient as PostgresPrismaClient } from "../generated/postgres/client";
import { PrismaClient as SqlitePrismaClient } from "../generated/sqlite/client";

/**
 * What repositories (lib/store/prisma/*-repository.ts) are written against: the SQLite-generated
 * client's type, for both providers.
 *
 * The two generated clients come from one schema that differs only in `provider`, so their models,
 * delegates and row types are the same; they differ only where Postgres offers more (string filter
 * `mode`, isolation levels, `skipDuplicates`, …). The SQLite client's API is therefore the subset
 * both accept: code that type-checks against it runs unchanged on the Postgres client. The
 * Postgres client is cast to this type in exactly one place (openDb below), and nowhere else, so a
 * repository can never reach for a Postgres-only option.
 */
export type Db = SqlitePrismaClient;

export interface OpenDbOptions {
  databaseUrl?: string;
  sqliteBusyTimeoutMs?: number;
  /** Operators, policies and audit reads: a small pool beside the hot path's own. */
  pgPoolSize?: number;
  pgTimeouts?: Partial<PgTimeouts>;
}

/**
 * A Prisma Client over the driver adapters the CLI already uses (prisma.config.ts), with a
 * connection of its own: on SQLite a second better-sqlite3 connection to the same WAL file, which
 * waits up to the busy timeout for the gate's writer rather than failing; on Postgres its own small
 * pool, with the adapter's own type parsing (BigInt columns arrive as bigint on both providers).
 */
export function openDb(options: OpenDbOptions = {}): Db {
  const target = parseDatabaseUrl(options.databaseUrl);
  if (target.provider === "postgres") return openPostgres(target, options.pgPoolSize ?? 3, options.pgTimeouts);
  return new SqlitePrismaClient({ adapter: new PrismaBetterSQLite3({ url: target.file, timeout: options.sqliteBusyTimeoutMs ?? 5_000 }) });
}

function openPostgres(target: Extract<DatabaseTarget, { provider: "postgres" }>, max: number, timeouts?: Partial<PgTimeouts>): Db {
  // The same address, TLS and libpq parameters as every other pool; the adapter parses its own types.
  const adapter = new PrismaPg({ ...pgClientConfig(target), max, allowExitOnIdle: true, ...pgTimeoutSettings(timeouts) });
  const client = new PostgresPrismaClient({ adapter });
  // The one cast between the two clients (see Db): same models, Postgres a superset of the API.
  return client as unknown as Db;
}
