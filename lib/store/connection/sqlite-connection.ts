import Database from "better-sqlite3";
import { toSqliteParams } from "../hot/shared/statements";
import { secureSqliteFiles } from "./sqlite-file-mode";
import { StoreUnavailableError } from "../ports/gate-store";

export type SqliteSynchronous = "full" | "normal";

export interface SqliteOpenOptions {
  /** FULL survives power loss; NORMAL (in WAL) survives a process crash only. */
  synchronous?: SqliteSynchronous;
  busyTimeoutMs?: number;
  foreignKeys?: boolean;
  /** Page cache of this connection (default 8 MiB; the gate's hot connection asks for more). */
  cacheMiB?: number;
}

/** SQLite errors that say "the store cannot serve now", not "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

export type Row = Record<string, unknown>;

/** Side connections (statistics): their reads go through the memory map, not the cache. */
const DEFAULT_CACHE_MIB = 8;
export const MMAP_BYTES = 1024 * 1024 * 1024;

/** A WAL connection: readers never wait for the writer, and other processes may share the file. */
export function openSqlite(file: string, options: SqliteOpenOptions = {}): Database.Database {
  secureSqliteFiles(file);
  const db = new Database(file, { timeout: options.busyTimeoutMs ?? 5_000 });
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${(options.synchronous ?? "full").toUpperCase()}`);
  if (options.foreignKeys) db.pragma("foreign_keys = ON");
  // SQLite's defaults (a 2 MB page cache, reads through pread) are sized for phones. Once the ledger
  // outgrows the cache every replay walks the records and events B-trees through syscalls; reads
  // from a memory map keep a begin on a store of millions of records close to one on a small store.
  // Pages in the map are the kernel's page cache, shared and reclaimable; SQLite's own cache holds
  // pages read from the WAL and pages being written, and it is private memory that every
  // connection fills up to its size under write load and never gives back. It was 64 MB on each
  // of the process's connections (issue #16 item 11: RSS +290 MB in a minute of load).
  db.pragma(`cache_size = -${(options.cacheMiB ?? DEFAULT_CACHE_MIB) * 1024}`);
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  return db;
}

/**
 * Cached prepared statements over one connection, with the shared `$n` SQL bound by number
 * (better-sqlite3 binds `?1` from `{ 1: … }`; booleans become 0/1) and driver failures that mean
 * "unavailable" turned into the retryable StoreUnavailableError.
 */
export class SqliteStatements {
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = this.db.prepare(toSqliteParams(sql));
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  run(sql: string, values: unknown[]): Database.RunResult {
    return this.stmt(sql).run(bind(values));
  }

  get(sql: string, values: unknown[]): Row | undefined {
    return this.stmt(sql).get(bind(values)) as Row | undefined;
  }

  all(sql: string, values: unknown[]): Row[] {
    return this.stmt(sql).all(bind(values)) as Row[];
  }

  /** Runs synchronous work, answering a promise; unavailability becomes retryable. */
  guard<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(toStoreError(error));
    }
  }

  /** One BEGIN IMMEDIATE transaction: takes the write lock up front, so it never deadlocks on upgrade. */
  immediate<T>(work: () => T): Promise<T> {
    return this.guard(() => this.db.transaction(work).immediate());
  }
}

/** A driver failure that means "the store cannot serve now" becomes the retryable StoreUnavailableError. */
export function toStoreError(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && UNAVAILABLE.test(code) ? new StoreUnavailableError(error) : error;
}

function bind(values: unknown[]): Record<number, unknown> {
  const bound: Record<number, unknown> = {};
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    bound[i + 1] = typeof value === "boolean" ? Number(value) : value;
  }
  return bound;
}
