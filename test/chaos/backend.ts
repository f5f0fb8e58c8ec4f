import Database from "better-sqlite3";

/** gate: through the gate, enforcing; shadow: through the gate with every tool in shadow mode; baseline: no gate. */
export type Mode = "gate" | "shadow" | "baseline";

export interface EffectInput {
  scenario: string;
  mode: Mode;
  tool: string;
  orderId: string;
  /** The idempotency key the caller passed, if any. */
  key: string | undefined;
  /** Whether this API honours idempotency keys (Stripe-like) or acts on every request (SMTP-like). */
  honorsKey: boolean;
  payload: unknown;
}

/**
 * The "outside world" the agents act on: a separate SQLite file whose rows are the real side
 * effects (charges made, emails sent). It outlives agent processes, so a child killed with SIGKILL
 * leaves exactly what it did behind. An API that honours idempotency keys keeps one row per key and
 * answers repeats with the stored row; the others insert a row per request.
 */
export class ToolBackend {
  private readonly db: Database.Database;

  constructor(readonly file: string) {
    this.db = new Database(file, { timeout: 10_000 });
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS effects (
        id INTEGER PRIMARY KEY, scenario TEXT NOT NULL, mode TEXT NOT NULL, tool TEXT NOT NULL,
        order_id TEXT NOT NULL, dedup_key TEXT, passed_key TEXT, payload TEXT, at INTEGER NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS effects_dedup ON effects (tool, dedup_key);
      CREATE INDEX IF NOT EXISTS effects_by_order ON effects (scenario, mode, order_id);
      CREATE TABLE IF NOT EXISTS key_hits (scenario TEXT NOT NULL, mode TEXT NOT NULL, order_id TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS model_calls (scenario TEXT NOT NULL, mode TEXT NOT NULL, run_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL, tool TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS inflight (scenario TEXT NOT NULL, mode TEXT NOT NULL, batch TEXT NOT NULL, run_id TEXT NOT NULL);
    `);
  }

  /** Performs the effect; `deduped` when a key-honouring API had already done it for this key. */
  applyEffect(input: EffectInput): { effectId: number; deduped: boolean } {
    const dedupKey = input.honorsKey && input.key ? input.key : null;
    return this.db.transaction(() => {
      if (dedupKey) {
        const existing = this.db.prepare(`SELECT id FROM effects WHERE tool = ? AND dedup_key = ?`).get(input.tool, dedupKey) as
          | { id: number }
          | undefined;
        if (existing) {
          this.db.prepare(`INSERT INTO key_hits VALUES (?, ?, ?)`).run(input.scenario, input.mode, input.orderId);
          return { effectId: existing.id, deduped: true };
        }
      }
      const info = this.db
        .prepare(`INSERT INTO effects (scenario, mode, tool, order_id, dedup_key, passed_key, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(input.scenario, input.mode, input.tool, input.orderId, dedupKey, input.key ?? null, JSON.stringify(input.payload), Date.now());
      return { effectId: Number(info.lastInsertRowid), deduped: false };
    }).immediate();
  }

  recordModelCall(scenario: string, mode: Mode, runId: string, toolCallId: string, tool: string): void {
    this.db.prepare(`INSERT INTO model_calls VALUES (?, ?, ?, ?, ?)`).run(scenario, mode, runId, toolCallId, tool);
  }

  markInflight(scenario: string, mode: Mode, batch: string, runId: string): void {
    this.db.prepare(`INSERT INTO inflight VALUES (?, ?, ?, ?)`).run(scenario, mode, batch, runId);
  }

  countInflight(scenario: string, mode: Mode, batch: string): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM inflight WHERE scenario = ? AND mode = ? AND batch = ?`).get(scenario, mode, batch) as { n: number }).n;
  }

  /** Side effects per order of one scenario run. */
  effectsByOrder(scenario: string, mode: Mode): Map<string, number> {
    const rows = this.db
      .prepare(`SELECT order_id AS orderId, count(*) AS n FROM effects WHERE scenario = ? AND mode = ? GROUP BY order_id`)
      .all(scenario, mode) as { orderId: string; n: number }[];
    return new Map(rows.map((r) => [r.orderId, r.n]));
  }

  keyHits(scenario: string, mode: Mode): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM key_hits WHERE scenario = ? AND mode = ?`).get(scenario, mode) as { n: number }).n;
  }

  modelCalls(scenario: string, mode: Mode): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM model_calls WHERE scenario = ? AND mode = ?`).get(scenario, mode) as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}
