import Database from "better-sqlite3";
import pg from "pg";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";

/**
 * Runs one statement straight against a test database and returns its rows: for setting up what
 * the API cannot (old events, a record past its TTL) and for checking what it does not show.
 * Numbered `$1` parameters work on both providers.
 */
export async function sql<T = Record<string, unknown>>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.provider === "sqlite") {
    const db = new Database(target.file, { timeout: 10_000 });
    try {
      const statement = db.prepare(text.replace(/\$(\d+)/g, "?$1"));
      const args = values.length === 0 ? [] : [Object.fromEntries(values.map((value, i) => [i + 1, value]))];
      return statement.reader ? (statement.all(...args) as T[]) : (statement.run(...args), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ host: target.host, port: target.port, user: target.user, database: target.database });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A count (COUNT/SUM) as a number on both providers (Postgres returns bigints as strings). */
export async function scalar(databaseUrl: string, text: string, values: unknown[] = []): Promise<number> {
  const [row] = await sql(databaseUrl, text, values);
  return Number(Object.values(row ?? {})[0] ?? 0);
}
