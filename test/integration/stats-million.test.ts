import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import { TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { InsightsClient } from "../helpers/insights-client";
import { type TestServer, startServer } from "../helpers/server";

const EVENTS = 1_000_000;
const ROWS = 100;
const TOOLS = 10;
const RUNS = 5_000;
const HOUR = 3_600_000;
/** The mix of kinds, cycled per tool: mostly begins (execute and dedup hits) and their completes. */
const PATTERN: [type: string, decision: string, kind: string][] = [
  ["begin", "execute", "execute"],
  ["complete", "succeeded", "complete_succeeded"],
  ["begin", "replay", "replay"],
  ["begin", "execute", "execute"],
  ["begin", "replay", "replay"],
  ["complete", "succeeded", "complete_succeeded"],
  ["begin", "in_progress", "in_progress"],
  ["begin", "execute", "execute"],
  ["complete", "failed", "complete_failed"],
  ["begin", "refused", "refused"],
  ["heartbeat", "extended", ""],
  ["begin", "conflict", "conflict"],
  ["begin", "execute", "execute"],
  ["lease_lost", "complete_succeeded", "lease_lost"],
  ["begin", "blocked", "blocked"],
  ["complete", "released", "complete_released"],
];

/**
 * Statistics stay fast as the ledger grows because they read the rollups: a million events go
 * straight into a SQLite database (one transaction, one prepared statement; the trigger keeps the
 * rollups), then the stats endpoints answer over HTTP. The figures are printed, not asserted —
 * the numbers are.
 */
describe("sqlite: statistics over 1,000,000 events", () => {
  let db: TestDatabase;
  let server: TestServer;
  let insights: InsightsClient;
  const expected = new Map<string, Map<string, number>>();
  let from: number;
  let to: number;

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    const { projectId } = await createTestProject(db.url);
    to = Math.floor(Date.now() / HOUR) * HOUR;
    from = to - 24 * HOUR;

    const started = performance.now();
    const target = parseDatabaseUrl(db.url);
    if (target.provider !== "sqlite") throw new Error("sqlite only");
    const sqlite = new Database(target.file);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = OFF"); // a test fixture, not the gate: durability is not the point here
    sqlite.pragma("cache_size = -400000");
    sqlite.pragma("temp_store = MEMORY");
    // One prepared statement of ROWS rows, run EVENTS / ROWS times in one transaction.
    const row = "(?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)";
    const insert = sqlite.prepare(
      `INSERT INTO events (id, project_id, call_id, key, tool, run_id, type, decision, attempt, latency_us, at)
       VALUES ${Array.from({ length: ROWS }, () => row).join(", ")}`,
    );
    sqlite.transaction(() => {
      for (let first = 0; first < EVENTS; first += ROWS) {
        const values: unknown[] = [];
        for (let i = first; i < first + ROWS; i++) {
          const at = from + Math.floor((i * 24 * HOUR) / EVENTS);
          const tool = `tool_${i % TOOLS}`;
          const [type, decision, kind] = PATTERN[Math.floor(i / TOOLS) % PATTERN.length]!;
          values.push(`evt_${String(i).padStart(8, "0")}`, projectId, `call_${i % 50_000}`, `key_${i % 20_000}`, tool, `run_${i % RUNS}`, type, decision, 100 + (i % 900), at);
          if (kind) {
            const kinds = expected.get(tool) ?? new Map<string, number>();
            kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
            expected.set(tool, kinds);
          }
        }
        insert.run(values);
      }
    })();
    const rollupRows = (sqlite.prepare(`SELECT COUNT(*) AS n FROM event_rollups`).get() as { n: number }).n;
    sqlite.close();
    console.log(`[1M stats] inserted ${EVENTS.toLocaleString("en")} events (${rollupRows.toLocaleString("en")} rollup rows) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    server = await startServer(db.url, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    insights = new InsightsClient(server.baseUrl, projectId);
  }, 480_000);

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
    await work(); // warm: the first request compiles the route and prepares its statement
    const started = performance.now();
    const result = await work();
    console.log(`[1M stats] ${label}: ${(performance.now() - started).toFixed(1)} ms`);
    return result;
  }

  const of = (tool: string, kind: string) => expected.get(tool)?.get(kind) ?? 0;
  const range = () => ({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });

  it("dedup per tool over 24 h: every figure is the exact count", async () => {
    const dedup = await timed("GET /stats/dedup (24 h, 10 tools)", () => insights.dedup(range()));
    expect(dedup.tools).toHaveLength(TOOLS);
    for (const figures of dedup.tools) {
      const begins = ["execute", "replay", "in_progress", "refused", "conflict", "blocked"].reduce((sum, kind) => sum + of(figures.tool, kind), 0);
      const dedupHits = of(figures.tool, "replay") + of(figures.tool, "in_progress") + of(figures.tool, "refused");
      expect(figures).toMatchObject({
        begins,
        dedupHits,
        executions: of(figures.tool, "execute"),
        conflicts: of(figures.tool, "conflict"),
        blocked: of(figures.tool, "blocked"),
        completes: { succeeded: of(figures.tool, "complete_succeeded"), failed: of(figures.tool, "complete_failed"), released: of(figures.tool, "complete_released") },
        leaseLost: of(figures.tool, "lease_lost"),
      });
      expect(figures.dedupRate).toBeCloseTo(dedupHits / begins, 10);
    }
    const heartbeats = EVENTS / PATTERN.length;
    expect(dedup.total.begins + dedup.tools.reduce((sum, t) => sum + t.completes.succeeded + t.completes.failed + t.completes.released + t.leaseLost, 0)).toBe(EVENTS - heartbeats);
  });

  it("time series by hour over 24 h and by minute over 2 h: sums match, one point per bucket", async () => {
    const hourly = await timed("GET /stats/timeseries?bucket=hour (24 h, all tools)", () => insights.timeseries({ bucket: "hour", ...range() }));
    const replays = hourly.series.find((s) => s.tool === "tool_3" && s.type === "begin" && s.decision === "replay")!;
    expect(replays.total).toBe(of("tool_3", "replay"));
    expect(replays.points).toHaveLength(24);
    expect(hourly.series).toHaveLength([...expected.values()].reduce((sum, kinds) => sum + kinds.size, 0));

    const minutes = await timed("GET /stats/timeseries?bucket=minute (2 h, one tool)", () =>
      insights.timeseries({ bucket: "minute", tool: "tool_7", from: new Date(to - 2 * HOUR).toISOString(), to: new Date(to).toISOString() }),
    );
    const executes = minutes.series.find((s) => s.type === "begin" && s.decision === "execute")!;
    expect(executes.points).toHaveLength(120);
    expect(executes.total).toBe(Math.round(of("tool_7", "execute") / 12));
  });

  it("top runs reads at most the latest 100,000 begins of the range, and says so", async () => {
    const top = await timed("GET /stats/top-runs (last hour, scan ≤ 100k begins)", () =>
      insights.topRuns({ from: new Date(to - HOUR).toISOString(), to: new Date(to).toISOString(), limit: 5 }),
    );
    expect(top.runs).toHaveLength(5);
    expect(top.runs[0]!.dedupHits).toBeGreaterThanOrEqual(top.runs[4]!.dedupHits);
    expect(top.scanned).toBeGreaterThan(0);
  });
});
