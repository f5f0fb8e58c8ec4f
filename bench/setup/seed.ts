import { hash } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { DEFAULT_POLICY } from "../../lib/core/policy";
import { ephemeralFingerprinter } from "../../lib/core/fingerprint";
import { prepareCall } from "../../lib/core/prepare-call";
import type { CallRecord } from "../../lib/core/record";
import { EVENT_COLUMNS, RECORD_COLUMNS, recordValues } from "../../lib/store/hot/shared/columns";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import { toSqliteParams } from "../../lib/store/hot/shared/statements";
import type { GateEvent } from "../../lib/store/ports/gate-store";

/**
 * Seeded records: four steps to a run, like the replay pools, each step with its own tool so a
 * run's steps have distinct signatures (what the loop detector compares) while sharing one args
 * text — the database then hashes only the key per row.
 */
export const SEED_TOOL = "charge_card";
export const SEED_RUN_SIZE = 4;
export const SEED_ARGS = { amount: 42 };
export const seedCall = (n: number) => ({
  tool: `${SEED_TOOL}_${n % SEED_RUN_SIZE}`,
  runId: `seed_r${Math.floor(n / SEED_RUN_SIZE)}`,
  step: `s${n}`,
  args: SEED_ARGS,
});

const HOUR = 3_600_000;
const TOOLS = 10;
/** The ledger's mix of kinds, cycled per tool (as in test/integration/stats-million.test.ts). */
const EVENT_PATTERN: [type: string, decision: string][] = [
  ["begin", "execute"],
  ["complete", "succeeded"],
  ["begin", "replay"],
  ["begin", "execute"],
  ["begin", "replay"],
  ["complete", "succeeded"],
  ["begin", "in_progress"],
  ["begin", "execute"],
  ["complete", "failed"],
  ["begin", "refused"],
  ["heartbeat", "extended"],
  ["begin", "conflict"],
  ["begin", "execute"],
  ["lease_lost", "complete_succeeded"],
  ["begin", "blocked"],
  ["complete", "released"],
];

export interface SeedSpec {
  databaseUrl: string;
  projectId: string;
  /** A real completed record (args SEED_ARGS) and its begin event, written by the gate: every other column is copied. */
  template: { record: CallRecord; event: GateEvent };
  records: number;
  events: number;
  /** Events are spread over the 24 hours before this instant. */
  now: number;
  /** Called once the load is running on the server (Postgres): the caller may block on other work. */
  onLoading?: () => void;
}

interface Dialect {
  sha256(text: string): string;
  /** A template value: a bound parameter (SQLite) or an inlined literal (Postgres, one script). */
  param(index: number, pgType: string, value: unknown): string;
  series(count: number): { with: string; from: string };
  bool(value: boolean): string;
}

const SQLITE: Dialect = {
  sha256: (text) => `bench_sha256(${text})`,
  param: (index) => `?${index}`,
  series: (count) => ({ with: `WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n < ${count - 1})`, from: "FROM g" }),
  bool: (value) => (value ? "1" : "0"),
};

/** A Postgres literal: our template values are null, numbers, booleans and strings. */
function pgLiteral(value: unknown, pgType: string): string {
  if (value === null || value === undefined) return `NULL::${pgType}`;
  if (typeof value === "number" || typeof value === "boolean") return `${Number(value)}::${pgType}`;
  return `'${String(value).replace(/'/g, "''")}'::${pgType}`;
}

const POSTGRES: Dialect = {
  sha256: (text) => `encode(sha256(convert_to(${text}, 'UTF8')), 'hex')`,
  param: (_index, pgType, value) => pgLiteral(value, pgType),
  series: (count) => ({ with: "", from: `FROM generate_series(0, ${count - 1}) AS g(n)` }),
  bool: (value) => (value ? "1" : "0"),
};

/** The key the engine derives for seedCall(n) (lib/core/keys.ts), spelled in SQL. */
function keyExpression(d: Dialect, projectId: string): string {
  const json = `'["idemgate/v1","step","${projectId}","seed_r' || (n / ${SEED_RUN_SIZE}) || '","${SEED_TOOL}_' || (n % ${SEED_RUN_SIZE}) || '","step","s' || n || '"]'`;
  return d.sha256(json);
}

/** Every record column: the template's value, or an expression of the row number n. */
function recordInsert(d: Dialect, spec: SeedSpec): { sql: string; values: unknown[] } {
  const overrides: Record<string, string> = {
    id: `'call_seed_' || n`,
    key: keyExpression(d, spec.projectId),
    run_id: `'seed_r' || (n / ${SEED_RUN_SIZE})`,
    step_id: `'s' || n`,
    tool: `'${SEED_TOOL}_' || (n % ${SEED_RUN_SIZE})`,
  };
  const templateValues = recordValues(spec.template.record);
  const values: unknown[] = [];
  const select = RECORD_COLUMNS.map(([column, , pgType], i) => {
    if (overrides[column]) return overrides[column];
    values.push(templateValues[i]);
    return d.param(values.length, pgType, templateValues[i]);
  });
  const { with: withClause, from } = d.series(spec.records);
  const columns = RECORD_COLUMNS.map(([column]) => `"${column}"`).join(", ");
  return { sql: `${withClause} INSERT INTO call_records (${columns}) SELECT ${select.join(", ")} ${from}`, values };
}

/** The ledger: the stats-million mix over 24 hours, ten tools, 5,000 runs. */
function eventInsert(d: Dialect, spec: SeedSpec): { sql: string; values: unknown[] } {
  const from = spec.now - 24 * HOUR;
  const kind = (field: 0 | 1) =>
    `CASE ((n / ${TOOLS}) % ${EVENT_PATTERN.length}) ${EVENT_PATTERN.map((entry, i) => `WHEN ${i} THEN '${entry[field]}'`).join(" ")} END`;
  const overrides: Record<string, string> = {
    id: `'evt_seed_' || n`,
    call_id: `'call_seed_' || (n % ${Math.max(1, spec.records)})`,
    key: `'seedkey_' || (n % 20000)`,
    tool: `'tool_' || (n % ${TOOLS})`,
    run_id: `'seed_r' || (n % 5000)`,
    type: kind(0),
    decision: kind(1),
    at: `${from} + (CAST(n AS BIGINT) * ${24 * HOUR}) / ${spec.events}`,
    latency_us: `100 + (n % 900)`,
    args_mismatch: d.bool(false),
    loop_step: `CASE WHEN ((n / ${TOOLS}) % ${EVENT_PATTERN.length}) IN (0, 2, 3, 4, 7, 9, 11, 12, 14) THEN 1 ELSE 0 END`,
  };
  const template = spec.template.event;
  const values: unknown[] = [];
  const select = EVENT_COLUMNS.map(([column, field, pgType]) => {
    if (overrides[column]) return overrides[column];
    const value = typeof template[field] === "boolean" ? Number(template[field]) : template[field];
    values.push(value);
    return d.param(values.length, pgType, value);
  });
  const { with: withClause, from: series } = d.series(spec.events);
  const columns = EVENT_COLUMNS.map(([column]) => `"${column}"`).join(", ");
  return { sql: `${withClause} INSERT INTO events (${columns}) SELECT ${select.join(", ")} ${series}`, values };
}

const sha256Hex = (text: string) => hash("sha256", text);

/** The rollups of the seeded events in one statement, as the rollups migration backfills them. */
const BACKFILL_ROLLUPS = `INSERT INTO event_rollups (project_id, minute, tool, kind, total, latency_us)
  SELECT project_id, (at / 60000) * 60000, tool,
    CASE type WHEN 'begin' THEN decision WHEN 'complete' THEN 'complete_' || decision ELSE 'lease_lost' END,
    COUNT(*), SUM(latency_us)
  FROM events WHERE project_id = $1 AND id LIKE 'evt_seed_%' AND type IN ('begin', 'complete', 'lease_lost')
  GROUP BY 1, 2, 3, 4
  ON CONFLICT (project_id, minute, tool, kind) DO UPDATE SET total = event_rollups.total + excluded.total, latency_us = event_rollups.latency_us + excluded.latency_us`;

const SEEDED_TABLES = ["call_records", "events"];

/**
 * Fills a gate database with `records` completed records and `events` ledger events, the way bulk
 * loads are done: secondary indexes and the rollup trigger are dropped (their definitions read
 * back from the catalog first), the rows generated by the database itself in one statement per
 * table, then the indexes rebuilt sorted, the rollups counted in one GROUP BY and the trigger
 * restored. Seconds for a million, where row-by-row inserts into random-key indexes take a
 * minute. Then checks that the records are exactly what the engine would have written, so a begin
 * on seedCall(n) replays.
 */
export async function seedGateDatabase(spec: SeedSpec): Promise<void> {
  const target = parseDatabaseUrl(spec.databaseUrl);
  const expected = (n: number) => {
    const call = seedCall(n);
    return prepareCall({ projectId: spec.projectId, tool: call.tool, runId: call.runId, stepId: call.step, scope: null, toolCallId: null, agentId: null, args: call.args }, DEFAULT_POLICY, ephemeralFingerprinter());
  };
  const check = (n: number, row: { key: string; args_fingerprint: string } | undefined) => {
    const want = expected(n);
    // The fingerprint is keyed with the database's install secret: the seed copies the one the gate
    // wrote for the template call (the same args), so only the SQL-derived key needs checking here.
    if (!row || row.key !== want.key || row.args_fingerprint !== spec.template.record.argsFingerprint) {
      throw new Error(`seeded record ${n} does not match the engine's key derivation: the seed's SQL needs updating`);
    }
  };
  const checked = spec.records > 0 ? [0, spec.records - 1] : [];
  const records = target.provider === "sqlite" ? recordInsert(SQLITE, spec) : recordInsert(POSTGRES, spec);
  const events = target.provider === "sqlite" ? eventInsert(SQLITE, spec) : eventInsert(POSTGRES, spec);

  if (target.provider === "sqlite") {
    spec.onLoading?.();
    const db = new Database(target.file);
    try {
      // A fixture, not the gate: no journal, no syncs, sorts in memory; WAL again afterwards.
      db.pragma("journal_mode = OFF");
      db.pragma("synchronous = OFF");
      db.pragma("cache_size = -1000000");
      db.pragma("temp_store = MEMORY");
      db.pragma("threads = 2");
      db.function("bench_sha256", { deterministic: true }, (text) => sha256Hex(String(text)));
      const list = SEEDED_TABLES.map(() => "?").join(", ");
      const rebuilt = db
        .prepare(`SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (${list}) ORDER BY type`)
        .all(...SEEDED_TABLES) as { sql: string }[];
      const names = db
        .prepare(`SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (${list})`)
        .all(...SEEDED_TABLES) as { type: string; name: string }[];
      db.transaction(() => {
        for (const { type, name } of names) db.exec(`DROP ${type.toUpperCase()} "${name}"`);
        if (spec.records > 0) db.prepare(toSqliteParams(records.sql)).run(bindNumbered(records.values));
        if (spec.events > 0) db.prepare(toSqliteParams(events.sql)).run(bindNumbered(events.values));
        for (const { sql } of rebuilt) db.exec(sql);
        if (spec.events > 0) db.prepare(toSqliteParams(BACKFILL_ROLLUPS)).run(bindNumbered([spec.projectId]));
      })();
      db.pragma("journal_mode = WAL");
      const read = db.prepare(`SELECT key, args_fingerprint FROM call_records WHERE id = ?`);
      for (const n of checked) check(n, read.get(`call_seed_${n}`) as { key: string; args_fingerprint: string } | undefined);
    } finally {
      db.close();
    }
    return;
  }

  const client = new pg.Client({ connectionString: spec.databaseUrl });
  await client.connect();
  try {
    const { rows: indexes } = await client.query(
      `SELECT i.indexname, i.indexdef FROM pg_indexes i
       WHERE i.schemaname = current_schema() AND i.tablename = ANY($1)
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
      [SEEDED_TABLES],
    );
    // One script, one round trip: the server loads while this process seeds SQLite meanwhile.
    const script = [
      "SET maintenance_work_mem = '1GB'",
      "SET work_mem = '256MB'",
      "BEGIN",
      ...indexes.map(({ indexname }) => `DROP INDEX "${indexname}"`),
      "ALTER TABLE events DISABLE TRIGGER events_rollup",
      ...(spec.records > 0 ? [records.sql] : []),
      ...(spec.events > 0 ? [events.sql] : []),
      ...indexes.map(({ indexdef }) => indexdef),
      "ALTER TABLE events ENABLE TRIGGER events_rollup",
      ...(spec.events > 0 ? [BACKFILL_ROLLUPS.replace("$1", pgLiteral(spec.projectId, "text"))] : []),
      "COMMIT",
    ];
    const loading = client.query(script.join(";\n"));
    spec.onLoading?.();
    await loading;
    // A ledger of a million rows in service has long been vacuumed: hint bits set and the visibility
    // map current. Left to the first reads, every tuple a cold walk meets is dirtied (a write per
    // page read) and autovacuum works through the load for minutes, under the measured cells.
    // VACUUM runs outside a transaction block, so one statement per round trip.
    for (const table of ["call_records", "events", "event_rollups"]) await client.query(`VACUUM (ANALYZE) ${table}`);
    for (const n of checked) {
      const { rows } = await client.query(`SELECT key, args_fingerprint FROM call_records WHERE id = $1`, [`call_seed_${n}`]);
      check(n, rows[0]);
    }
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** better-sqlite3 binds `?1` from `{ 1: … }`. */
function bindNumbered(values: unknown[]): Record<number, unknown> {
  return Object.fromEntries(values.map((value, i) => [i + 1, typeof value === "boolean" ? Number(value) : value]));
}
