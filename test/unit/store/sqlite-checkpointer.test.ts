import { mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../../../lib/store/hot/sqlite/checkpointer";
import { openSqlite } from "../../../lib/store/connection/sqlite-connection";
import type Database from "better-sqlite3";

async function waitUntil(probe: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("SQLite background checkpointer", () => {
  let db: Database.Database | undefined;
  let checkpointer: SqliteCheckpointer | null = null;
  afterEach(async () => {
    await checkpointer?.stop();
    db?.close();
  });

  it("copies the WAL into the database file from a worker thread while the writer does nothing", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "checkpointer-")), "c.db");
    db = openSqlite(file, { synchronous: "normal" });
    db.pragma("wal_autocheckpoint = 0");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)");
    const insert = db.prepare("INSERT INTO t (body) VALUES (randomblob(3000))");
    for (let i = 0; i < 500; i++) insert.run();
    // Everything is still in the WAL only: the database file holds at most its first pages.
    const before = statSync(file).size;
    expect(before).toBeLessThan(500 * 3000);

    checkpointer = SqliteCheckpointer.for(file, { intervalMs: 20 });
    expect(checkpointer).not.toBeNull();
    checkpointer!.start();
    expect(await waitUntil(() => statSync(file).size >= 500 * 3000, 60_000)).toBe(true);
    // The writer keeps writing beside it.
    for (let i = 0; i < 100; i++) insert.run();
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 600 });
  });

  it("stops: the worker exits and never keeps the process alive", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "checkpointer-")), "c.db");
    db = openSqlite(file);
    checkpointer = SqliteCheckpointer.for(file, { intervalMs: 20 });
    checkpointer!.start();
    expect(checkpointer!.running).toBe(true);
    await checkpointer!.stop();
    expect(checkpointer!.running).toBe(false);
    await checkpointer!.stop(); // twice is harmless
  });
});
