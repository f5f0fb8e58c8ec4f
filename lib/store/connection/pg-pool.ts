import pg from "pg";
import type { DatabaseTarget } from "./database-url";
import { type PgTimeouts, pgTimeoutSettings } from "./pg-timeouts";

type PostgresTarget = Extract<DatabaseTarget, { provider: "postgres" }>;

const INT8_OID = 20;

/**
 * A pool for our own hot-path SQL: int8 (our epoch-ms columns) parsed as numbers, since every
 * value we store fits in 2^53.
 */
export function createPgPool(target: PostgresTarget, max = 10, timeouts?: Partial<PgTimeouts>): pg.Pool {
  const pool = new pg.Pool({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
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
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
    allowExitOnIdle: true,
  });
}
