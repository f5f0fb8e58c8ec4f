import pg from "pg";
import type { DatabaseTarget } from "./database-url";
import { type PgTimeouts, pgTimeoutSettings } from "./pg-timeouts";
import { pgExtraParams, preparePgTls, sslFor } from "./pg-tls";

type PostgresTarget = Extract<DatabaseTarget, { provider: "postgres" }>;

const INT8_OID = 20;

/**
 * Where and how to connect, for every pool and client on a target: the address fields one by one
 * (Prisma's migrate ignores the shadow database when given a connectionString), plus the URL's
 * TLS settings and other libpq parameters, which older versions silently dropped.
 */
export function pgClientConfig(target: PostgresTarget): pg.ClientConfig {
  return {
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
    ssl: sslFor(target.url, target.tls),
    ...pgExtraParams(target.url),
  };
}

/** Before the first pool opens: refuses a URL that asks for TLS the server cannot give (pg-tls.ts). */
export function preparePostgresTls(target: DatabaseTarget): Promise<void> {
  if (target.provider !== "postgres") return Promise.resolve();
  return preparePgTls(target.url, pgClientConfig(target), target.tls);
}

/**
 * A pool for our own hot-path SQL: int8 (our epoch-ms columns) parsed as numbers, since every
 * value we store fits in 2^53.
 */
/** The hot path's pool size when none is configured (IDEMGATE_PG_POOL_SIZE's default). */
export const DEFAULT_PG_POOL_SIZE = 10;

export function createPgPool(target: PostgresTarget, max = DEFAULT_PG_POOL_SIZE, timeouts?: Partial<PgTimeouts>, settings: Record<string, string> = {}): pg.Pool {
  const config = pgClientConfig(target);
  // Session settings go with the URL's own `options` (libpq's `-c name=value` list).
  const options = [config.options, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].filter(Boolean).join(" ");
  const pool = new pg.Pool({
    ...config,
    ...(options ? { options } : {}),
    max,
    allowExitOnIdle: true,
    ...pgTimeoutSettings(timeouts),
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection killed by the server (restart, failover) must not crash the process: the
  // pool drops it and the next request opens a new one, or answers 503 if it cannot.
  pool.on("error", (error) => console.warn(`[idemgate] postgres connection lost: ${error.message}`));
  return pool;
}

/**
 * A pool for the writes a crash of the database server may lose, and nothing else: the replay
 * counter with its ledger line, and the write-behind batches of decision-only events (in_progress,
 * refused, blocked…). Their commits return once Postgres has them in its WAL buffers, without
 * waiting for the flush to disk (`synchronous_commit = off`): one fsync fewer on every replay. What
 * can be lost is bounded by Postgres (the last ~3 × wal_writer_delay, 600 ms by default, and only
 * when the database server itself goes down: our process dying loses none of it), never torn or
 * out of order. Claims and completions never go through it: they commit on createPgPool's
 * connections and are on disk when answered. The SQLite store makes the same split (write-ops.ts:
 * relaxed writes commit at NORMAL).
 */
export function createRelaxedPgPool(target: PostgresTarget, max: number, timeouts?: Partial<PgTimeouts>): pg.Pool {
  return createPgPool(target, max, timeouts, { synchronous_commit: "off" });
}

/**
 * Prisma's pg adapter cannot deserialize the `"char"`/`name` columns that its migration engine
 * reads from the catalog (prisma/orm#27403): report them as text.
 */
export class CatalogSafePool extends pg.Pool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as any)(...args);
    if (result && typeof result.then === "function") {
      return result.then((res: pg.QueryResult) => {
        for (const field of res.fields ?? []) {
          if (field.dataTypeID === 18 || field.dataTypeID === 19) field.dataTypeID = 25;
          else if (field.dataTypeID === 1002 || field.dataTypeID === 1003) field.dataTypeID = 1009;
        }
        return res;
      });
    }
    return result;
  }
}

export function catalogSafePool(target: PostgresTarget): pg.Pool {
  return new CatalogSafePool({
    ...pgClientConfig(target),
    allowExitOnIdle: true,
  });
}
