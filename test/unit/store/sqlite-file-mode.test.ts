import Database from "better-sqlite3";
import { chmodSync, existsSync, mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "../../../lib/store/connection/database-url";
import { ensureMigrated } from "../../../lib/store/connection/migrate";
import { openSqlite } from "../../../lib/store/connection/sqlite-connection";

const mode = (file: string) => statSync(file).mode & 0o777;
const freshFile = () => path.join(mkdtempSync(path.join(os.tmpdir(), "sqlite-mode-")), "nested", "idemgate.db");

// The files hold args, results, password hashes and tokens: nobody but the owner may read them,
// whatever the umask of the shell that started the server.
describe("SQLite files at rest", () => {
  let umask: number;
  beforeAll(() => {
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
  });

  it("creates the database, its WAL and its shared-memory file owner-only", () => {
    const file = freshFile();
    const db = openSqlite(file);
    try {
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
      db.prepare("INSERT INTO t DEFAULT VALUES").run();
      expect(existsSync(`${file}-wal`)).toBe(true);
      expect(existsSync(`${file}-shm`)).toBe(true);
      expect([mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    } finally {
      db.close();
    }
  });

  it("creates the database owner-only when the start migrates a new one", async () => {
    const file = freshFile();
    await ensureMigrated(parseDatabaseUrl(`file:${file}`));
    expect(mode(file)).toBe(0o600);
  });

  it("tightens an existing world-readable database and its companions on start", async () => {
    const file = freshFile();
    const target = parseDatabaseUrl(`file:${file}`);
    await ensureMigrated(target);
    // As an older version left them, held open by another process so the WAL and SHM stay.
    const older = new Database(file);
    try {
      older.pragma("journal_mode = WAL");
      older.prepare("SELECT count(*) FROM _prisma_migrations").get();
      for (const suffix of ["", "-wal", "-shm"]) chmodSync(`${file}${suffix}`, 0o644);
      await ensureMigrated(target);
      expect([mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    } finally {
      older.close();
    }
  });
});
