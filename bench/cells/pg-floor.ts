import pg from "pg";
import { CLIENTS, type Subject } from "./types";

const SCHEMA = `CREATE TABLE IF NOT EXISTS floor_records (
  key text PRIMARY KEY, state text NOT NULL, lease_token text, result text, expires_at bigint NOT NULL)`;

const CLAIM = {
  name: "floor_claim",
  text: `INSERT INTO floor_records (key, state, lease_token, expires_at) VALUES ($1, 'in_progress', $2, $3) ON CONFLICT (key) DO NOTHING`,
};
const COMPLETE = { name: "floor_complete", text: `UPDATE floor_records SET state = 'succeeded', result = $2 WHERE key = $1 AND lease_token = $3` };
const READ = { name: "floor_read", text: `SELECT state, result FROM floor_records WHERE key = $1` };

/**
 * The Postgres floor: INSERT … ON CONFLICT DO NOTHING to claim, UPDATE to complete, each a
 * prepared statement in its own (committed) transaction, over a pool the size of the gate's
 * default (10); a replay is one primary-key read.
 */
export async function pgFloorSubject(databaseUrl: string, replayPool: number, poolSize = 10): Promise<Subject> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  await pool.query(SCHEMA);

  const pair = async (key: string) => {
    const claimed = await pool.query({ ...CLAIM, values: [key, "lease", Date.now() + 86_400_000] });
    if (claimed.rowCount !== 1) throw new Error(`floor: ${key} already claimed`);
    const completed = await pool.query({ ...COMPLETE, values: [key, '{"ok":true}', "lease"] });
    if (completed.rowCount !== 1) throw new Error(`floor: ${key} not completed`);
  };

  return {
    id: "floor.postgres",
    group: "floor",
    label: "raw pg (INSERT … ON CONFLICT + UPDATE)",
    workloads: [
      { name: "fresh", unit: "pairs", clients: [...CLIENTS.withEight], op: (seq, tag) => pair(`${tag}:${seq}`) },
      {
        name: "replay",
        unit: "reads",
        clients: [...CLIENTS.standard],
        prepare: async () => {
          for (let i = 0; i < replayPool; i += 16) await Promise.all(Array.from({ length: Math.min(16, replayPool - i) }, (_, j) => pair(`pool:${i + j}`)));
        },
        op: async (seq) => {
          const { rows } = await pool.query({ ...READ, values: [`pool:${seq % replayPool}`] });
          if (rows[0]?.state !== "succeeded") throw new Error("floor: replay found no completed key");
        },
      },
    ],
    close: () => pool.end(),
  };
}
