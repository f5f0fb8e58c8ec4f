import { existsSync, mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../../../lib/store/hot/sqlite/checkpointer";
import { SqliteGateStore } from "../../../lib/store/hot/sqlite/gate-store";
import type { CheckpointerOptions } from "../../../lib/store/hot/sqlite/checkpointer";
import { openSqlite } from "../../../lib/store/connection/sqlite-connection";
import { GateService } from "../../../lib/server/gate/gate-service";
import { defaultPolicies } from "../../../lib/server/policies/policy-source";
import { createProjectWithKey } from "../../../lib/server/operators/projects";
import { migratedSqliteFile } from "../../helpers/migrated-sqlite";
import { waitFor } from "../../helpers/storm-scenario";
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

  it("an idle log already copied whole waits the interval, not the 10 ms a log with frames to copy gets", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "checkpointer-")), "c.db");
    db = openSqlite(file, { synchronous: "normal" });
    db.pragma("wal_autocheckpoint = 0");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)");
    const insert = db.prepare("INSERT INTO t (body) VALUES (randomblob(3000))");
    for (let i = 0; i < 200; i++) insert.run();
    // About 600 frames: past a quarter of 1,024, short of a restart.
    checkpointer = SqliteCheckpointer.for(file, { intervalMs: 50, restartFrames: 1_024 });
    checkpointer!.start();
    const worker = checkpointer!;
    await waitFor(async () => statSync(file).size >= 200 * 3000 && worker.stats.ticks >= 3, 60_000, "the log copied whole");
    expect(worker.stats.logFrames).toBeGreaterThanOrEqual(256);
    expect(worker.stats.logFrames).toBeLessThan(1_024);
    expect(worker.stats.nextMs).toBe(50);
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

const FRAME_BYTES = 4_096 + 24;
const walFrames = (file: string) => (existsSync(`${file}-wal`) ? Math.floor(statSync(`${file}-wal`).size / FRAME_BYTES) : 0);

/** The gate's own store and engine on a migrated file, with the checkpoint worker's settings. */
async function gateOnFile(checkpoints: CheckpointerOptions) {
  const file = await migratedSqliteFile("checkpoints");
  const store = new SqliteGateStore(file, { synchronous: "normal", checkpoints });
  const project = await createProjectWithKey(store, "checkpoints");
  const gate = new GateService(store, defaultPolicies);
  let seq = 0;
  /** `pairs` begin + complete pairs, 50 at a time (group commits as under load), each with 12 KB of args. */
  const load = async (pairs: number) => {
    for (let done = 0; done < pairs; done += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const n = seq++;
          const begun = await gate.begin(project!.projectId, { tool: "charge_card", runId: `run_${n}`, stepId: "charge", scope: null, toolCallId: null, agentId: null, args: { n, note: "x".repeat(12_000) } });
          if (begun.decision !== "execute") throw new Error(`begin ${n}: ${begun.decision}`);
          await gate.complete(project!.projectId, begun.callId, begun.leaseToken, { outcome: "succeeded", result: { n } });
        }),
      );
    }
  };
  return { file, store, load };
}

/** Issue #16 item 11: a checkpoint inside a commit stalls every request of the process. */
describe("SQLite gate store: checkpoints stay off the request thread, the WAL stays bounded", () => {
  let store: SqliteGateStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it("with the worker running but idle, the request thread copies nothing into the database file, however long the log", async () => {
    // The worker's first pass is an hour away: only the writer itself could checkpoint now.
    const gate = await gateOnFile({ intervalMs: 3_600_000 });
    store = gate.store;
    await gate.load(300); // 600 writes: the store starts its worker after 500
    expect(store.checkpoints).not.toBeNull();
    const before = statSync(gate.file).size;
    // Past the 8,000 frames at which the writer used to checkpoint for itself, inside a commit.
    while (walFrames(gate.file) < 9_000 && statSync(gate.file).size === before) await gate.load(100);
    expect(statSync(gate.file).size).toBe(before);
    expect(walFrames(gate.file)).toBeGreaterThanOrEqual(9_000);
  });

  it("the worker copies the log and restarts it, so the WAL file stays near its limit under sustained writes", async () => {
    const gate = await gateOnFile({ intervalMs: 20, restartFrames: 256 });
    store = gate.store;
    // About 10 MB of log, forty times the limit.
    await gate.load(1_000);
    const worker = store.checkpoints!;
    expect(worker).not.toBeNull();
    await waitFor(async () => worker.stats.restarts > 0, 60_000, "the worker's first restart of the log");
    // The log restarts at the next commit once it was all copied; that commit trims the file to the limit.
    await waitFor(
      async () => {
        await gate.load(50);
        return walFrames(gate.file) <= 256 + 100;
      },
      60_000,
      "the WAL file trimmed to about 256 frames",
    );
    expect(statSync(gate.file).size).toBeGreaterThan(5_000_000);
  });
});
