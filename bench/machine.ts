import os from "node:os";
import Database from "better-sqlite3";
import pg from "pg";
import { TEST_POSTGRES_URL } from "../test/helpers/postgres";

export interface MachineInfo {
  cpus: { model: string; count: number };
  memoryGb: number;
  os: string;
  node: string;
  postgres: string | null;
  redis: string | null;
  sqlite: { version: string; synchronous: "full" | "normal" };
  /** 1-minute load average when the run started and ended: other work on the machine skews a run. */
  loadAverage: { start: number; end: number };
}

async function postgresVersion(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return String((await client.query("SHOW server_version")).rows[0]?.server_version ?? "unknown");
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What the numbers were measured on: only comparable between runs on the same kind of machine. */
export async function machineInfo(options: {
  sqliteSynchronous: "full" | "normal";
  redisVersion?: string;
  postgres: boolean;
  loadAverage: { start: number; end: number };
}): Promise<MachineInfo> {
  const cpus = os.cpus();
  const memory = new Database(":memory:");
  const sqliteVersion = String((memory.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v);
  memory.close();
  return {
    cpus: { model: cpus[0]?.model.trim() ?? "unknown", count: cpus.length },
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: options.postgres ? await postgresVersion() : null,
    redis: options.redisVersion ?? null,
    sqlite: { version: sqliteVersion, synchronous: options.sqliteSynchronous },
    loadAverage: { start: Number(options.loadAverage.start.toFixed(2)), end: Number(options.loadAverage.end.toFixed(2)) },
  };
}
