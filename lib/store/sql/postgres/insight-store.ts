import type pg from "pg";
import { type Row, SqlInsightStore } from "../shared/insight-store";
import { PG_RETENTION_SQL } from "../shared/retention-statements";
import { StoreUnavailableError } from "../../ports/gate-store";
import { isPgUnavailable } from "../../connection/pg-errors";

/**
 * Postgres: a small pool of its own, so retention deletes and chart queries never take a
 * connection a decision is waiting for.
 */
export class PostgresInsightStore extends SqlInsightStore {
  readonly provider = "postgres" as const;
  protected readonly retention = PG_RETENTION_SQL;

  constructor(private readonly pool: pg.Pool) {
    super();
  }

  private async query(sql: string, values: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.pool.query(sql, values);
    } catch (error) {
      if (isPgUnavailable(error)) throw new StoreUnavailableError(error);
      throw error;
    }
  }

  protected async all(sql: string, values: unknown[]): Promise<Row[]> {
    return (await this.query(sql, values)).rows;
  }

  protected async changes(sql: string, values: unknown[]): Promise<number> {
    return (await this.query(sql, values)).rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
