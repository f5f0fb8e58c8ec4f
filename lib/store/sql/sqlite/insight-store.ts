import { type Row, SqlInsightStore } from "../shared/insight-store";
import { RETENTION_SQL } from "../shared/retention-statements";
import { type SqliteOpenOptions, SqliteStatements, openSqlite } from "../../connection/sqlite-connection";

export type SqliteInsightOptions = Omit<SqliteOpenOptions, "foreignKeys">;

/**
 * SQLite: a connection of its own beside the gate's. Every statement is one short implicit
 * transaction, so a retention batch holds the write lock only while it deletes its own rows.
 */
export class SqliteInsightStore extends SqlInsightStore {
  readonly provider = "sqlite" as const;
  protected readonly retention = RETENTION_SQL;
  private readonly sql: SqliteStatements;

  constructor(file: string, options: SqliteInsightOptions = {}) {
    super();
    this.sql = new SqliteStatements(openSqlite(file, options));
  }

  protected all(sql: string, values: unknown[]): Promise<Row[]> {
    return this.sql.guard(() => this.sql.all(sql, values));
  }

  protected changes(sql: string, values: unknown[]): Promise<number> {
    return this.sql.guard(() => this.sql.run(sql, values).changes);
  }

  async close(): Promise<void> {
    this.sql.db.close();
  }
}
