import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { type DatabaseTarget, parseDatabaseUrl } from "../connection/database-url";
import { pgClientConfig } from "../connection/pg-pool";
import { type PgTimeouts, pgTimeoutSettings } from "../connection/pg-timeouts";
import { PrismaClient as PostgresPrismaClient } from "../generated/postgres/client";
import { PrismaClient as SqlitePrismaClient } from "../generated/sqlite/client";

/**
 * What repositories (lib/store/prisma/*) are written against: the SQLite-generated client's type,
 * for both providers. This is how one implementation is shared across the two generated clients.
 *
 * - The two generated clients come from one schema that differs only in `provider` and `output`
 *   (scripts/sync-postgres-schema.mjs keeps prisma/postgres/schema.prisma in step), so their
 *   models, delegates and row types are the same; they differ only where Postgres offers more
 *   (string filter `mode`, isolation levels, `skipDuplicates`, …).
 * - The SQLite client's API is therefore the subset both accept: code that type-checks against it
 *   runs unchanged on the Postgres client. The Postgres client is cast to this type in exactly one
 *   place (openDb below), so a repository can never reach for a Postgres-only option.
 * - Row types (`CallRecord`, `ResendRequest`, …) and `Prisma.TransactionClient` are imported from
 *   the SQLite client too; epoch-ms columns are BigInt in the schema (Prisma takes numbers and
 *   answers bigint on both providers: convert with Number on the way out).
 * - Where the provider matters (the dialect of the few raw statements run through the client),
 *   ask providerOf(db) or use queryRows, never a second implementation.
 * - SQLite transactions: a Prisma transaction whose callback only awaits its own queries runs within
 *   one turn of the event loop (the adapter's statements are synchronous), so it never holds the
 *   write lock while the hot path's connection waits for it synchronously. Keep it that way: no
 *   other awaits (network, crypto, timers) inside a transaction callback.
 */
export type Db = SqlitePrismaClient;

/**
 * Interactive transactions' limits: on SQLite they queue on the adapter's one connection, so under
 * a burst on a loaded machine Prisma's default 2 s wait to start one is too short.
 */
export const TRANSACTION_LIMITS = { maxWait: 10_000, timeout: 10_000 } as const;

const providers = new WeakMap<object, "sqlite" | "postgres">();

/** The provider a client from openDb talks to. */
export function providerOf(db: Db): "sqlite" | "postgres" {
  const provider = providers.get(db);
  if (!provider) throw new Error("not a client from openDb");
  return provider;
}

/**
 * Runs one of lib/store/sql's shared statements (numbered `$n` placeholders, both dialects)
 * through the client: Postgres takes them as they are; SQLite's adapter binds positionally, so
 * each `$n` becomes `?` with its value repeated in order.
 */
export function queryRows(db: Db, sql: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  if (providerOf(db) === "postgres") return db.$queryRawUnsafe(sql, ...values);
  const bound: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    bound.push(values[Number(n) - 1]);
    return "?";
  });
  return db.$queryRawUnsafe(text, ...bound);
}

export interface OpenDbOptions {
  databaseUrl?: string;
  sqliteBusyTimeoutMs?: number;
  /** SQLite: when a commit returns (default full, as the gate's own durable writes). */
  sqliteSynchronous?: "full" | "normal";
  /** Operators, policies and audit reads: a small pool beside the hot path's own. */
  pgPoolSize?: number;
  pgTimeouts?: Partial<PgTimeouts>;
}

/**
 * Interactive transactions (operator paths: better-auth's sign-up, members, policies; never the
 * gate's hot path) get more than Prisma's 5 s default: on a loaded 2-core machine creating the first
 * admin on Postgres took 6.9–8.3 s (scrypt and the pool's connect inside better-auth's transaction),
 * and the server could not start (P2028). A bound is kept so a stuck transaction still ends.
 */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

/**
 * A Prisma Client over the driver adapters the CLI already uses (prisma.config.ts), with a
 * connection of its own: on SQLite a second better-sqlite3 connection to the same WAL file, which
 * waits up to the busy timeout for the gate's writer rather than failing; on Postgres its own small
 * pool, with the adapter's own type parsing (BigInt columns arrive as bigint on both providers).
 */
export function openDb(options: OpenDbOptions = {}): Db {
  const target = parseDatabaseUrl(options.databaseUrl);
  const db =
    target.provider === "postgres"
      ? openPostgres(target, options.pgPoolSize ?? 3, options.pgTimeouts)
      : new SqlitePrismaClient({
          adapter: new SqliteAdapter({ url: target.file, timeout: options.sqliteBusyTimeoutMs ?? 5_000 }, options.sqliteSynchronous ?? "full"),
          transactionOptions: TRANSACTION_OPTIONS,
        });
  providers.set(db, target.provider);
  return db;
}

/**
 * Prisma's SQLite adapter opens its connection as SQLite leaves it in WAL mode, synchronous=NORMAL
 * (better-sqlite3 is built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1): a commit returns before it is
 * on disk, so an operator's approval, a policy, a member or an API key written through it could be
 * lost with the machine's power while the gate's own claims survive. Every connection it opens is
 * set like the gate's (found by bench/orm-vs-raw.ts, which measured the ORM at NORMAL).
 */
class SqliteAdapter extends PrismaBetterSQLite3 {
  constructor(
    config: ConstructorParameters<typeof PrismaBetterSQLite3>[0],
    private readonly synchronous: "full" | "normal",
  ) {
    super(config);
  }

  override async connect() {
    const adapter = await super.connect();
    await adapter.executeScript(`PRAGMA synchronous = ${this.synchronous === "full" ? "FULL" : "NORMAL"}`);
    return adapter;
  }
}

function openPostgres(target: Extract<DatabaseTarget, { provider: "postgres" }>, max: number, timeouts?: Partial<PgTimeouts>): Db {
  // The same address, TLS and libpq parameters as every other pool; the adapter parses its own types.
  const adapter = new PrismaPg({ ...pgClientConfig(target), max, allowExitOnIdle: true, ...pgTimeoutSettings(timeouts) });
  const client = new PostgresPrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS });
  // The one cast between the two clients (see Db): same models, Postgres a superset of the API.
  return client as unknown as Db;
}
