import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { type BenchResult, runBench } from "../../bench/run";
import { defaultOptions, smokeOptions } from "../../bench/options";
import { renderReport } from "../../bench/table";

/**
 * `npm run bench` in smoke mode: every cell of the suite with a handful of operations, on this
 * run's template databases and real `next start` servers. It checks that the harness works and
 * reports every cell in the documented shape — never a timing (these machines are noisy).
 */

// The suite's shape: subject → workload → client counts (bench/README.md lists what each measures).
const STANDARD = [1, 32];
const WITH_EIGHT = [1, 8, 32];
const PAIRS = { fresh: WITH_EIGHT, replay: STANDARD };
const GROWTH = { "begin-fresh": [1], "begin-replay": [1], "begin-replay-recent": [1] };
const EXPECTED: Record<string, Record<string, number[]>> = {
  "floor.sqlite-normal": PAIRS,
  "floor.sqlite-full": PAIRS,
  "floor.postgres": PAIRS,
  "floor.next": { fresh: STANDARD, replay: STANDARD },
  "floor.node-http": { fresh: STANDARD, replay: STANDARD },
  "inprocess.sqlite-full": PAIRS,
  "inprocess.sqlite-normal": PAIRS,
  "inprocess.sqlite-full-worker": PAIRS,
  "inprocess.postgres": PAIRS,
  "peer.powertools-redis": PAIRS,
  "peer.powertools-redis-aof": PAIRS,
  "http.sqlite": { fresh: STANDARD, replay: STANDARD },
  "http.postgres": { fresh: STANDARD, replay: STANDARD },
  "mcp.direct": { fresh: [1], replay: [1] },
  "mcp.sqlite": { fresh: [1], replay: [1] },
  "scaleout.postgres-2": { fresh: [32], replay: [32] },
  "growth.sqlite-100": GROWTH,
  "growth.sqlite-1k": GROWTH,
  "growth.postgres-100": GROWTH,
  "growth.postgres-1k": GROWTH,
  "stats.sqlite": { "dedup-24h": [1], "series-hour-24h": [1], "series-minute-2h": [1], "top-runs-1h": [1] },
  "stats.postgres": { "dedup-24h": [1], "series-hour-24h": [1], "series-minute-2h": [1], "top-runs-1h": [1] },
  "httptools.handler": { fresh: [1] },
  "httptools.middleware-inprocess": { fresh: [1] },
  "httptools.middleware-http": { fresh: [1] },
  "httptools.upstream": { fresh: [1] },
  "httptools.gateway": { fresh: [1] },
};
const expectedIds = Object.entries(EXPECTED).flatMap(([subject, workloads]) =>
  Object.entries(workloads).flatMap(([workload, clients]) => clients.map((c) => `${subject}/${workload}/c${c}`)),
);

describe("npm run bench -- --smoke", () => {
  it("runs every cell and reports each one well-formed, with the bars and the JSON file", async () => {
    const outFile = path.join(inject("tmpRoot"), "bench-smoke.json");
    const options = {
      ...smokeOptions(defaultOptions("full")),
      outFile,
      quiet: true,
      templates: { sqlite: inject("sqliteTemplate"), postgres: inject("postgresTemplate") },
    };
    const result: BenchResult = await runBench(options);
    const pgUp = inject("postgresTemplate") !== null;

    expect(result.cells.map((cell) => cell.id).sort()).toEqual([...expectedIds].sort());
    for (const cell of result.cells) {
      if (cell.status === "skipped") {
        // Only what the environment lacks may be skipped: Postgres without a server, the peer without Redis.
        expect(cell.skipReason, cell.id).toMatch(cell.group === "peer" ? /no Redis|no redis-server/ : /no Postgres/);
        if (cell.group !== "peer") expect(pgUp, `${cell.id} skipped although Postgres is up`).toBe(false);
        expect(cell.reps).toEqual([]);
        continue;
      }
      expect(cell.reps, cell.id).toHaveLength(options.reps);
      expect({ id: cell.id, errors: cell.errors, firstError: cell.firstError }).toEqual({ id: cell.id, errors: 0, firstError: null });
      for (const rep of cell.reps) {
        expect(rep.ops, cell.id).toBe(cell.target.ops);
        expect(rep.seconds, cell.id).toBeGreaterThan(0);
        expect(rep.opsPerSecond, cell.id).toBeGreaterThan(0);
        expect(rep.p50Ms, cell.id).toBeGreaterThanOrEqual(0);
        expect(rep.p99Ms, cell.id).toBeGreaterThanOrEqual(rep.p50Ms);
      }
      expect(cell.median, cell.id).not.toBeNull();
      const floor = result.cells.find((c) => c.subjectId === cell.floorId && c.workload === cell.workload && c.clients === cell.clients);
      if (floor?.status === "ok") expect(cell.ratio, `${cell.id} has a ratio to ${floor.id}`).not.toBeNull();
    }

    // Every bar of the issue is evaluated, or marked n/a only because a cell it needs was skipped.
    expect(result.bars.map((bar) => bar.id)).toEqual(
      expect.arrayContaining(["inprocess-fresh-c1", "inprocess-fresh-c8", "inprocess-replay-c1", "http-sqlite-pair", "http-sqlite-replay", "http-sqlite-replay-lean", "http-sqlite-replay-c32", "scaleout-fresh"]),
    );
    for (const bar of result.bars) {
      if (bar.pass === null) expect(pgUp && result.cells.every((c) => c.status === "ok"), `${bar.id} not evaluated`).toBe(false);
      else expect(typeof bar.value).toBe("number");
    }

    expect(result.machine.cpus.count).toBeGreaterThan(0);
    expect(result.machine.sqlite.synchronous).toBe("full");
    if (pgUp) expect(result.machine.postgres).toMatch(/^\d+/);

    // The table names every subject; the JSON on disk is the result.
    const table = renderReport(result);
    for (const label of new Set(result.cells.map((cell) => cell.label))) expect(table).toContain(label);
    expect(table).toContain("## The bars (the hot-path issue)");
    expect(JSON.parse(readFileSync(outFile, "utf8"))).toEqual(JSON.parse(JSON.stringify(result)));
  }, 600_000);
});
