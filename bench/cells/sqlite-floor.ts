import Database from "better-sqlite3";
import { CLIENTS, type Subject } from "./types";

export type Synchronous = "normal" | "full";

const SCHEMA = `CREATE TABLE IF NOT EXISTS floor_records (
  key TEXT PRIMARY KEY, state TEXT NOT NULL, lease_token TEXT, result TEXT, expires_at INTEGER NOT NULL)`;

/**
 * The SQLite floor: the least an idempotency store can do on better-sqlite3 — a conditional
 * insert that claims the key, an update that completes it, each its own durable transaction;
 * a replay is one primary-key read. One connection in WAL mode, like the gate's.
 */
export function sqliteFloorSubject(file: string, synchronous: Synchronous, replayPool: number): Subject {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
  db.exec(SCHEMA);
  const claim = db.prepare(`INSERT INTO floor_records (key, state, lease_token, expires_at) VALUES (?, 'in_progress', ?, ?) ON CONFLICT (key) DO NOTHING`);
  const complete = db.prepare(`UPDATE floor_records SET state = 'succeeded', result = ? WHERE key = ? AND lease_token = ?`);
  const read = db.prepare(`SELECT state, result FROM floor_records WHERE key = ?`);

  const pair = (key: string) => {
    if (claim.run(key, "lease", Date.now() + 86_400_000).changes !== 1) throw new Error(`floor: ${key} already claimed`);
    if (complete.run('{"ok":true}', key, "lease").changes !== 1) throw new Error(`floor: ${key} not completed`);
  };

  return {
    id: `floor.sqlite-${synchronous}`,
    group: "floor",
    label: `raw better-sqlite3 (WAL, synchronous=${synchronous.toUpperCase()})`,
    workloads: [
      {
        name: "fresh",
        unit: "pairs",
        clients: [...CLIENTS.withEight],
        op: async (seq, tag) => pair(`${tag}:${seq}`),
      },
      {
        name: "replay",
        unit: "reads",
        clients: [...CLIENTS.standard],
        prepare: async () => {
          for (let i = 0; i < replayPool; i++) pair(`pool:${i}`);
        },
        op: async (seq) => {
          const row = read.get(`pool:${seq % replayPool}`) as { state: string } | undefined;
          if (row?.state !== "succeeded") throw new Error("floor: replay found no completed key");
        },
      },
    ],
    close: async () => {
      db.close();
    },
  };
}
