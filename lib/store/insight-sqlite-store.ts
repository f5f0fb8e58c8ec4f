import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { type Row, SqlInsightStore } from "./insight-store";
import { RETENTION_SQL } from "./retention-statements";
import { toSqliteParams } from "./statements";
import { StoreUnavailableError } from "./types";

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

export interface SqliteInsightOptions {
  synchronous?: "full" | "normal";
  busyTimeoutMs?: number;
}

/**
 * SQLite: a connection of its own beside the gate's. Every statement is one short implicit
 * transaction, so a retention batch holds the write lock only while it deletes its own rows.
 */
export class SqliteInsightStore extends SqlInsightStore {
  readonly provider = "sqlite" as const;
  protected readonly retention = RETENTION_SQL;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string, options: SqliteInsightOptions = {}) {
    super();
    mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file, { timeout: options.busyTimeoutMs ?? 5_000 });
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(`synchronous = ${(options.synchronous ?? "full").toUpperCase()}`);
  }

  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(toSqliteParams(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Numbered parameters bind by name in better-sqlite3: `?1` takes `{ 1: … }`. */
  private bind(values: unknown[]): Record<number, unknown> {
    const bound: Record<number, unknown> = {};
    values.forEach((value, i) => (bound[i + 1] = value));
    return bound;
  }

  private guard<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === "string" && UNAVAILABLE.test(code)) return Promise.reject(new StoreUnavailableError(error));
      return Promise.reject(error);
    }
  }

  protected all(sql: string, values: unknown[]): Promise<Row[]> {
    return this.guard(() => this.stmt(sql).all(this.bind(values)) as Row[]);
  }

  protected changes(sql: string, values: unknown[]): Promise<number> {
    return this.guard(() => this.stmt(sql).run(this.bind(values)).changes);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
