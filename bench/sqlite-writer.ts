// Where SQLite commits run (#21 item 3): inline on the request thread vs a writer thread, in process,
// cells interleaved (the machine is shared). Besides ops/s and latency it reports how long the
// request thread is held per commit (inline: the whole group commit, fsync included; worker: handing
// the batch over and settling the answers) and the event loop's delays, and, with fresh pairs
// committing beside them, what replays wait.
//
//   npx tsx bench/sqlite-writer.ts [--seconds 2] [--reps 3] [--sync full|normal] [--cells "fresh c1,replay c1"]
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type Gate, createGate } from "../lib/sdk";
import { createProjectWithKey } from "../lib/server/operators/projects";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { ensureMigrated } from "../lib/store/connection/migrate";
import { SqliteGroupCommit } from "../lib/store/hot/sqlite/group-commit";
import type { SqliteGateStore } from "../lib/store/hot/sqlite/gate-store";
import { SqliteWriterThread } from "../lib/store/hot/sqlite/writer-thread";
import { benchPolicies } from "./cells/bench-policy";
import { fillReplayPool, gateCall } from "./cells/in-process";
import { freshCall, replayCall } from "./cells/types";
import { type LoadRun, drive } from "./load";
import { benchApp } from "./setup/bench-app";

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : fallback;
};
const SECONDS = Number(arg("--seconds", "2"));
const REPS = Number(arg("--reps", "3"));
const SYNC = arg("--sync", "full") as "full" | "normal";
const POOL = 256;
const MODES = ["inline", "worker"] as const;
type Mode = (typeof MODES)[number];

/** Request-thread time inside commit work, summed while a cell runs. */
const held = { ms: 0 };
function timed<T extends object>(proto: T, name: string, counts: (self: unknown) => boolean): void {
  const original = (proto as Record<string, (...a: unknown[]) => unknown>)[name]!;
  (proto as Record<string, unknown>)[name] = function (this: unknown, ...a: unknown[]) {
    if (!counts(this)) return original.apply(this, a);
    const t0 = performance.now();
    try {
      return original.apply(this, a);
    } finally {
      held.ms += performance.now() - t0;
    }
  };
}
const queued = (self: unknown) => (self as { queue: unknown[] }).queue.length > 0;
timed(SqliteGroupCommit.prototype, "flush", queued);
timed(SqliteWriterThread.prototype, "post", queued);
timed(SqliteWriterThread.prototype, "settle", () => true);

interface Subject {
  mode: Mode;
  store: SqliteGateStore;
  gate: Gate;
  pool: string;
}

async function subject(mode: Mode, template: string, dir: string): Promise<Subject> {
  const file = path.join(dir, `${mode}.db`);
  copyFileSync(template, file);
  const store = benchApp(`file:${file}`, SYNC, { IDEMGATE_SQLITE_WRITER: mode }).gate.store as SqliteGateStore;
  const project = await createProjectWithKey(store, `writer ${mode}`);
  const gate = createGate({ inProcess: { store, projectId: project!.projectId, policies: benchPolicies } });
  const pool = `${mode}_pool`;
  await fillReplayPool(gate, pool, POOL);
  return { mode, store, gate, pool };
}

interface Cell {
  name: string;
  fresh: number;
  replay: number;
}
const ALL_CELLS: Cell[] = [
  { name: "fresh c1", fresh: 1, replay: 0 },
  { name: "fresh c8", fresh: 8, replay: 0 },
  { name: "fresh c32", fresh: 32, replay: 0 },
  { name: "replay c1", fresh: 0, replay: 1 },
  { name: "replay c32", fresh: 0, replay: 32 },
  { name: "8 fresh + 8 replay", fresh: 8, replay: 8 },
];
const only = arg("--cells", "");
const CELLS = only ? ALL_CELLS.filter((cell) => only.split(",").includes(cell.name)) : ALL_CELLS;

interface Sample {
  freshOps: number;
  freshP50: number;
  freshP99: number;
  replayOps: number;
  replayP50: number;
  replayP99: number;
  commits: number;
  writesPerCommit: number;
  heldPerCommitMs: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

const pct = (run: LoadRun | null, p: number) => {
  if (!run || run.ops === 0) return 0;
  const sorted = Float64Array.from(run.latencies).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
let seq = 0;

async function runCell(s: Subject, cell: Cell): Promise<Sample> {
  const before = s.store.commitCounts;
  held.ms = 0;
  const delays = monitorEventLoopDelay({ resolution: 1 });
  delays.enable();
  const maxMs = SECONDS * 1000;
  const tag = `${s.mode}_${++seq}`;
  const [fresh, replay] = await Promise.all([
    cell.fresh ? drive({ ops: 1_000_000, clients: cell.fresh, maxMs, firstSeq: 0, tag, op: (n, t) => gateCall(s.gate, freshCall(t, n), "executed") }) : null,
    cell.replay ? drive({ ops: 1_000_000, clients: cell.replay, maxMs, firstSeq: seq * 10_000, tag, op: (n) => gateCall(s.gate, replayCall(s.pool, n, POOL), "replayed") }) : null,
  ]);
  delays.disable();
  for (const run of [fresh, replay]) if (run?.errors) throw new Error(`${s.mode} ${cell.name}: ${run.errors} errors, first: ${run.firstError}`);
  const after = s.store.commitCounts;
  const commits = after.commits - before.commits;
  return {
    freshOps: fresh ? fresh.ops / fresh.seconds : 0,
    freshP50: pct(fresh, 50),
    freshP99: pct(fresh, 99),
    replayOps: replay ? replay.ops / replay.seconds : 0,
    replayP50: pct(replay, 50),
    replayP99: pct(replay, 99),
    commits,
    writesPerCommit: commits ? (after.writes - before.writes) / commits : 0,
    heldPerCommitMs: commits ? held.ms / commits : 0,
    loopDelayP99Ms: delays.percentile(99) / 1e6,
    loopDelayMaxMs: delays.max / 1e6,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "idemgate-writer-bench-"));
  const template = path.join(dir, "template.db");
  await ensureMigrated(parseDatabaseUrl(`file:${template}`));
  const subjects: Subject[] = [];
  for (const mode of MODES) subjects.push(await subject(mode, template, dir));
  const samples = new Map<string, Sample[]>();
  const load = [os.loadavg()[0]!];
  for (let rep = 0; rep < REPS; rep++) {
    // Every cell of both modes once, then again in reverse order, so drift touches both alike.
    const order = CELLS.flatMap((cell) => subjects.map((s) => [cell, s] as const));
    if (rep % 2 === 1) order.reverse();
    for (const [cell, s] of order) {
      const sample = await runCell(s, cell);
      const key = `${cell.name}|${s.mode}`;
      samples.set(key, [...(samples.get(key) ?? []), sample]);
      console.error(`[rep ${rep + 1}] ${cell.name.padEnd(20)} ${s.mode.padEnd(6)} fresh ${sample.freshOps.toFixed(0)}/s p50 ${sample.freshP50.toFixed(3)}  replay ${sample.replayOps.toFixed(0)}/s p50 ${sample.replayP50.toFixed(3)}  held/commit ${sample.heldPerCommitMs.toFixed(3)} ms`);
    }
  }
  load.push(os.loadavg()[0]!);
  console.log(`SQLite writer, in process, synchronous=${SYNC.toUpperCase()}: ${REPS} interleaved repetitions of ${SECONDS} s per cell, medians; load average ${load.map((l) => l.toFixed(2)).join(" → ")}`);
  console.log("| cell | writer | pairs/s | pair p50 ms | pair p99 ms | replays/s | replay p50 ms | replay p99 ms | commits | writes/commit | request thread held per commit ms | loop delay p99 / max ms |");
  console.log("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const cell of CELLS) {
    for (const mode of MODES) {
      const xs = samples.get(`${cell.name}|${mode}`)!;
      const m = (f: (x: Sample) => number, digits: number) => median(xs.map(f)).toFixed(digits);
      const fresh = cell.fresh > 0;
      const replay = cell.replay > 0;
      console.log(
        `| ${cell.name} | ${mode} | ${fresh ? m((x) => x.freshOps, 0) : ""} | ${fresh ? m((x) => x.freshP50, 3) : ""} | ${fresh ? m((x) => x.freshP99, 3) : ""} | ${replay ? m((x) => x.replayOps, 0) : ""} | ${replay ? m((x) => x.replayP50, 3) : ""} | ${replay ? m((x) => x.replayP99, 3) : ""} | ${m((x) => x.commits, 0)} | ${m((x) => x.writesPerCommit, 2)} | ${m((x) => x.heldPerCommitMs, 3)} | ${m((x) => x.loopDelayP99Ms, 2)} / ${m((x) => x.loopDelayMaxMs, 2)} |`,
      );
    }
  }
  for (const s of subjects) await s.store.close();
  rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
