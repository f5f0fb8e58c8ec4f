import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { parseDatabaseUrl } from "./database-url";
import { type PgTimeouts, pgTimeoutSettings } from "./pg-timeouts";
import { pgClientConfig } from "./pg-pool";
import { openSqlite } from "./sqlite-connection";
import { PostgresOperatorStore } from "../sql/postgres/operator-store";
import { SqliteOperatorStore } from "../sql/sqlite/operator-store";
import type { OperatorStore } from "../ports/operator-store";
import type { Db } from "../prisma/client";
import { OperatorRepository } from "../prisma/operator-repository";

export interface OperatorDbOptions {
  databaseUrl: string;
  sqliteSynchronous?: "full" | "normal";
  sqliteBusyTimeoutMs?: number;
  pgPoolSize?: number;
  pgTimeouts?: Partial<PgTimeouts>;
}

/** What better-auth's Kysely support takes as `database`. */
export interface AuthDatabase {
  db: Kysely<unknown>;
  type: "sqlite" | "postgres";
  transaction: boolean;
}

/** One connection (SQLite) or pool (Postgres) shared by the operator store and better-auth. */
export interface OperatorDb {
  store: OperatorStore;
  auth: AuthDatabase;
  close(): Promise<void>;
}

const INT8_OID = 20;
const TIMESTAMP_OID = 1114;

/**
 * better-auth writes JS Dates into `timestamp(3)` columns (what Prisma's DateTime becomes); pg
 * would send them in the server process's local time zone. This client sends them as UTC and the
 * pool reads them back as UTC, so gate instances in different time zones agree on session expiry.
 */
class UtcDateClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const utc = (values: unknown) => (Array.isArray(values) ? values.map((v) => (v instanceof Date ? v.toISOString() : v)) : values);
    if (typeof args[0] === "object" && args[0] !== null && "values" in args[0]) args[0] = { ...args[0], values: utc(args[0].values) };
    else if (Array.isArray(args[1])) args[1] = utc(args[1]);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (super.query as any)(...args);
  }
}

function openPostgres(url: string, max: number, repository: OperatorRepository, timeouts?: Partial<PgTimeouts>): OperatorDb {
  const target = parseDatabaseUrl(url);
  if (target.provider !== "postgres") throw new Error("not a postgres url");
  const pool = new pg.Pool({
    Client: UtcDateClient,
    ...pgClientConfig(target),
    max,
    allowExitOnIdle: true,
    ...pgTimeoutSettings(timeouts),
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") => {
        if (oid === INT8_OID) return (value: string) => Number(value);
        if (oid === TIMESTAMP_OID) return (value: string) => new Date(`${value.replace(" ", "T")}Z`);
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  pool.on("error", (error) => console.warn(`[idemgate] operator postgres connection lost: ${error.message}`));
  return {
    store: new PostgresOperatorStore(pool, repository),
    auth: { db: new Kysely({ dialect: new PostgresDialect({ pool }) }), type: "postgres", transaction: true },
    close: () => pool.end(),
  };
}

function openSqliteDb(file: string, options: OperatorDbOptions, repository: OperatorRepository): OperatorDb {
  const db = openSqlite(file, {
    synchronous: options.sqliteSynchronous,
    busyTimeoutMs: options.sqliteBusyTimeoutMs,
    foreignKeys: true,
  });
  return {
    store: new SqliteOperatorStore(db, repository),
    // No better-auth transactions on SQLite: Kysely would hold the write lock across awaits while
    // the gate store's connection waits for it synchronously, stalling the event loop. Its writes
    // are single statements without them.
    auth: { db: new Kysely({ dialect: new SqliteDialect({ database: db }) }), type: "sqlite", transaction: false },
    close: async () => void db.close(),
  };
}

/** `prisma` serves the operator store's reads and single-statement writes (OperatorRepository). */
export function openOperatorDb(options: OperatorDbOptions, prisma: Db): OperatorDb {
  const target = parseDatabaseUrl(options.databaseUrl);
  const repository = new OperatorRepository(prisma);
  if (target.provider === "postgres") return openPostgres(options.databaseUrl, options.pgPoolSize ?? 4, repository, options.pgTimeouts);
  return openSqliteDb(target.file, options, repository);
}
