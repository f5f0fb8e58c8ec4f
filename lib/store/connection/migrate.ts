import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { type DatabaseTarget, schemaPathFor } from "./database-url";
import { pgClientConfig } from "./pg-pool";
import { secureSqliteFiles } from "./sqlite-file-mode";

function committedMigrations(target: DatabaseTarget, root: string): string[] {
  const dir = path.join(root, path.dirname(schemaPathFor(target)), "migrations");
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

async function appliedMigrations(target: DatabaseTarget): Promise<Set<string>> {
  const sql = `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  if (target.provider === "sqlite") {
    if (!existsSync(target.file)) return new Set();
    const db = new Database(target.file, { readonly: true, fileMustExist: true });
    try {
      const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
      if (!hasTable) return new Set();
      return new Set((db.prepare(sql).all() as { migration_name: string }[]).map((row) => row.migration_name));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client(pgClientConfig(target));
  await client.connect();
  try {
    const exists = await client.query(`SELECT to_regclass('_prisma_migrations') AS t`);
    if (!exists.rows[0]?.t) return new Set();
    return new Set((await client.query(sql)).rows.map((row: { migration_name: string }) => row.migration_name));
  } finally {
    await client.end();
  }
}

/**
 * Applies committed migrations with Prisma's own `migrate deploy` when any is missing, so that a
 * bare `next start` on a new database works. Cheap when nothing is pending (one query).
 */
export async function ensureMigrated(target: DatabaseTarget, root: string = process.cwd()): Promise<"up-to-date" | "migrated"> {
  if (target.provider === "sqlite") secureSqliteFiles(target.file);
  const applied = await appliedMigrations(target);
  if (committedMigrations(target, root).every((name) => applied.has(name))) return "up-to-date";
  const cli = path.join(root, "node_modules", "prisma", "build", "index.js");
  const preload = path.join(root, "scripts", "lib", "unref-long-timers.cjs");
  const result = spawnSync(process.execPath, [...(existsSync(preload) ? ["--require", preload] : []), cli, "migrate", "deploy"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: target.url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`prisma migrate deploy failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  // The CLI may exit as soon as nothing is in flight (unref-long-timers.cjs): what it applied is
  // read back, so an exit before the last migration can never pass for success.
  const after = await appliedMigrations(target);
  const missing = committedMigrations(target, root).filter((name) => !after.has(name));
  if (missing.length > 0) throw new Error(`prisma migrate deploy exited without applying ${missing.join(", ")}:\n${result.stdout}\n${result.stderr}`);
  return "migrated";
}
