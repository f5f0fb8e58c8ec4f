import Database from "better-sqlite3";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStatements, openSqlite } from "../../../lib/store/connection/sqlite-connection";
import { SqliteGroupCommit } from "../../../lib/store/hot/sqlite/group-commit";
import { StoreUnavailableError } from "../../../lib/store/ports/gate-store";

describe("SQLite group commit", () => {
  let file: string;
  let sql: SqliteStatements;
  let commits: SqliteGroupCommit;
  const insert = (id: number) => () => sql.run("INSERT INTO t (id) VALUES ($1)", [id]).changes;
  const ids = () => sql.all("SELECT id FROM t ORDER BY id", []).map((row) => Number(row.id));
  const synchronous = () => Number(sql.db.pragma("synchronous", { simple: true }));

  beforeEach(() => {
    file = path.join(mkdtempSync(path.join(os.tmpdir(), "group-commit-")), "t.db");
    sql = new SqliteStatements(openSqlite(file, { synchronous: "full", busyTimeoutMs: 0 }));
    sql.db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    commits = new SqliteGroupCommit(sql, "full");
  });
  afterEach(() => sql.db.close());

  it("afterCommit runs once the batch is committed, before any write is answered, and only for writes that applied", async () => {
    const seen: string[] = [];
    const failing = () => {
      throw new Error("constraint");
    };
    const writes = [
      commits.write(insert(1), "durable", (value) => seen.push(`a:${value}:${ids().join(",")}`)).then(() => seen.push("answered a")),
      commits.write(failing, "durable", () => seen.push("b")).catch(() => seen.push("answered b")),
      commits.write(insert(2), "relaxed", (value) => seen.push(`c:${value}:${ids().join(",")}`)).then(() => seen.push("answered c")),
    ];
    await Promise.all(writes);
    // Both hooks saw the whole batch committed; the failed write's hook never ran.
    expect(seen).toEqual(["a:1:1,2", "c:1:1,2", "answered a", "answered b", "answered c"]);
  });

  it("writes asked for in one turn share one transaction; awaited writes get one each", async () => {
    expect(await Promise.all(Array.from({ length: 10 }, (_, i) => commits.write(insert(i))))).toEqual(Array(10).fill(1));
    expect(commits.counts).toEqual({ commits: 1, writes: 10 });
    for (let i = 10; i < 13; i++) await commits.write(insert(i));
    expect(commits.counts).toEqual({ commits: 4, writes: 13 });
    expect(ids()).toHaveLength(13);
  });

  it("a failing write rolls back only itself; the rest of its batch commits", async () => {
    const results = await Promise.allSettled([
      commits.write(insert(1)),
      commits.write(() => {
        sql.run("INSERT INTO t (id) VALUES ($1)", [2]);
        return sql.run("INSERT INTO t (id) VALUES ($1)", [1]); // duplicate key: this write fails
      }),
      commits.write(insert(3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(ids()).toEqual([1, 3]);
    expect(commits.counts.commits).toBe(1);
  });

  it("a write that throws alone leaves nothing behind", async () => {
    await expect(
      commits.write(() => {
        sql.run("INSERT INTO t (id) VALUES ($1)", [7]);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(ids()).toEqual([]);
  });

  it("when the write lock cannot be had, every write of the batch is told to retry and nothing is written", async () => {
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    try {
      const results = await Promise.allSettled([commits.write(insert(1)), commits.write(insert(2))]);
      for (const result of results) {
        expect(result.status).toBe("rejected");
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
      }
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(ids()).toEqual([]);
    await commits.write(insert(3));
    expect(ids()).toEqual([3]);
  });

  it("commits relaxed-only batches without fsync (NORMAL) and any batch with a durable write with FULL", async () => {
    await commits.write(insert(1), "relaxed");
    expect(synchronous()).toBe(1);
    await Promise.all([commits.write(insert(2), "relaxed"), commits.write(insert(3), "durable")]);
    expect(synchronous()).toBe(2);
    const normal = new SqliteGroupCommit(sql, "normal");
    await normal.write(insert(4), "durable");
    expect(synchronous()).toBe(1);
  });
});
