import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Bar, evaluateBars } from "./bars";
import { type Group, type Subject, type SubjectOrSkip, type Workload, isSkipped } from "./cells/types";
import { drive } from "./load";
import { type MachineInfo, machineInfo } from "./machine";
import type { BenchOptions } from "./options";
import { BenchDatabases } from "./setup/databases";
import { BenchServers, benchServerEnv } from "./setup/servers";
import { buildSubjects } from "./setup/subjects";
import { type Baseline, openBaseline } from "./setup/baseline";
import { prepareBaselineCheckout } from "./setup/baseline-checkout";
import { type RepResult, type Summary, summarizeReps, summarizeRun } from "./stats";

export interface CellResult {
  /** `${subjectId}/${workload}/c${clients}` */
  id: string;
  subjectId: string;
  group: Group;
  label: string;
  workload: string;
  unit: string;
  clients: number;
  floorId: string | null;
  status: "ok" | "skipped";
  skipReason?: string;
  /** Operation target and time cap of each repetition. */
  target: { ops: number; maxSeconds: number };
  reps: RepResult[];
  /** Operations that got an answer other than the one the workload requires, over all repetitions. */
  errors: number;
  firstError: string | null;
  median: Summary | null;
  /** Against the floor cell of the same workload and clients: floor ops/s ÷ ours, our p50 ÷ floor p50. */
  ratio: { cost: number; p50: number } | null;
}

export interface BenchResult {
  version: 1;
  startedAt: string;
  durationSeconds: number;
  smoke: boolean;
  options: {
    ops: number;
    /** The cap the repetitions ran with (after fitting the budget). */
    cellSeconds: number;
    budgetSeconds: number;
    reps: number;
    warmupOps: number;
    sections: string[];
    growthRecords: { small: number; large: number };
    statsOps: number;
    sqliteSynchronous: "full" | "normal";
    /** `--baseline`: the checkout whose in-process, HTTP and MCP gateway cells ran beside ours (group "before"). */
    baseline?: string;
  };
  machine: MachineInfo;
  cells: CellResult[];
  bars: Bar[];
}

export const cellId = (subjectId: string, workload: string, clients: number) => `${subjectId}/${workload}/c${clients}`;

interface PlannedCell {
  result: CellResult;
  subject: Subject;
  workload: Workload;
}

type Log = (message: string) => void;

/** Every workload counts its operations across repetitions: replays keep walking their pool. */
class SequenceCounters {
  private readonly next = new Map<Workload, number>();
  take(workload: Workload, count: number): number {
    const first = this.next.get(workload) ?? 0;
    this.next.set(workload, first + count);
    return first;
  }
}

function plan(subjects: SubjectOrSkip[], options: BenchOptions): { planned: PlannedCell[]; all: CellResult[] } {
  const planned: PlannedCell[] = [];
  const all: CellResult[] = [];
  for (const subject of subjects) {
    for (const workload of subject.workloads) {
      for (const clients of workload.clients) {
        const ops = ("ops" in workload ? workload.ops : undefined) ?? options.ops;
        const result: CellResult = {
          id: cellId(subject.id, workload.name, clients),
          subjectId: subject.id,
          group: subject.group,
          label: subject.label,
          workload: workload.name,
          unit: workload.unit,
          clients,
          floorId: subject.floorId ?? null,
          status: isSkipped(subject) ? "skipped" : "ok",
          ...(isSkipped(subject) ? { skipReason: subject.skipped } : {}),
          target: { ops, maxSeconds: options.cellSeconds },
          reps: [],
          errors: 0,
          firstError: null,
          median: null,
          ratio: null,
        };
        all.push(result);
        if (!isSkipped(subject)) planned.push({ result, subject, workload: workload as Workload });
      }
    }
  }
  return { planned, all };
}

async function prepareAndWarm(subjects: Subject[], options: BenchOptions, counters: SequenceCounters, runTag: string, log: Log) {
  for (const [index, subject] of subjects.entries()) {
    for (const workload of subject.workloads) {
      if (workload.prepare) await workload.prepare();
      const ops = Math.min(options.warmupOps, workload.ops ?? options.warmupOps);
      if (ops === 0) continue;
      const clients = Math.max(...workload.clients);
      const run = await drive({ ops, clients, maxMs: 750, firstSeq: counters.take(workload, 0), tag: `${runTag}w${index}`, op: workload.op });
      counters.take(workload, run.ops);
      if (run.errors > 0) log(`warmup of ${subject.id}/${workload.name}: ${run.errors} errors, first: ${run.firstError}`);
    }
    log(`ready: ${subject.label}`);
  }
}

function describe(cell: CellResult, rep: RepResult): string {
  const errors = rep.errors > 0 ? `  ${rep.errors} ERRORS: ${cell.firstError}` : "";
  return `${cell.id.padEnd(44)} ${String(rep.ops).padStart(6)} ops ${rep.opsPerSecond.toFixed(0).padStart(7)}/s  p50 ${rep.p50Ms.toFixed(3)} ms  p99 ${rep.p99Ms.toFixed(3)} ms${rep.capped ? "  (time cap)" : ""}${errors}`;
}

/** Repetitions interleaved (every cell once, then again, alternating direction), so drift over the run touches every cell alike. */
/** Seconds kept for closing servers and dropping databases. */
const TEARDOWN_SECONDS = 20;

/**
 * The cap the repetitions can afford: if setup ran long (a loaded machine), shrink it so that even
 * if every cell ran to its cap the run ends within the budget. Never applies to an uncapped run.
 */
function fitCap(options: BenchOptions, cells: number, elapsedSeconds: number, log: Log): number {
  if (options.cellSeconds === 0 || options.budgetSeconds === 0 || cells === 0) return options.cellSeconds;
  const affordable = (options.budgetSeconds - elapsedSeconds - TEARDOWN_SECONDS) / (cells * options.reps);
  if (affordable >= options.cellSeconds) return options.cellSeconds;
  const cap = Math.max(0.25, Number(affordable.toFixed(2)));
  log(`setup took ${elapsedSeconds.toFixed(0)} s: capping cells at ${cap} s to fit the ${options.budgetSeconds} s budget`);
  return cap;
}

async function measure(planned: PlannedCell[], options: BenchOptions, counters: SequenceCounters, runTag: string, log: Log) {
  for (let rep = 0; rep < options.reps; rep++) {
    const order = rep % 2 === 0 ? planned : [...planned].reverse();
    log(`repetition ${rep + 1} of ${options.reps} (${order.length} cells)`);
    for (const [index, cell] of order.entries()) {
      const ops = cell.result.target.ops;
      const firstSeq = counters.take(cell.workload, 0);
      const run = await drive({
        ops,
        clients: cell.result.clients,
        maxMs: options.cellSeconds * 1000,
        firstSeq,
        tag: `${runTag}${rep}x${index}`,
        op: cell.workload.op,
      });
      counters.take(cell.workload, run.ops);
      const summary = summarizeRun(run);
      cell.result.reps.push(summary);
      cell.result.errors += run.errors;
      cell.result.firstError ??= run.firstError;
      log(`  ${describe(cell.result, summary)}`);
    }
  }
}

function finish(cells: CellResult[]): void {
  const byId = new Map(cells.map((cell) => [cell.id, cell]));
  for (const cell of cells) {
    if (cell.status === "ok" && cell.reps.length > 0) cell.median = summarizeReps(cell.reps);
  }
  for (const cell of cells) {
    if (!cell.median || !cell.floorId) continue;
    const floor = byId.get(cellId(cell.floorId, cell.workload, cell.clients))?.median;
    if (!floor) continue;
    cell.ratio = {
      cost: Number((floor.opsPerSecond / cell.median.opsPerSecond).toFixed(2)),
      p50: Number((cell.median.p50Ms / floor.p50Ms).toFixed(2)),
    };
  }
}

/**
 * The whole suite in one process: set every subject up (databases, servers, seeded stores), warm
 * each workload briefly, run all cells `reps` times interleaved, then take medians, ratios to the
 * floors and the bars, written to `options.outFile` as JSON. Everything it created is
 * removed at the end.
 */
export async function runBench(options: BenchOptions): Promise<BenchResult> {
  // A baseline made from a git ref is checked out and built first, outside the budget: its build
  // takes minutes that must not shrink the cells' time cap.
  const checkout = options.baseline
    ? prepareBaselineCheckout(options.baseline, (message) => {
        if (!options.quiet) console.error(`[bench] ${message}`);
      })
    : undefined;
  const started = Date.now();
  const log: Log = options.quiet ? () => undefined : (message) => console.error(`[bench +${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);
  const loadBefore = os.loadavg()[0]!;
  const runTag = `b${started.toString(36)}`;
  const tmpRoot = mkdtempSync(path.join(os.tmpdir(), "idemgate-bench-"));
  const databases = new BenchDatabases(tmpRoot, options.templates);
  const servers = new BenchServers(tmpRoot, benchServerEnv(options.sqliteSynchronous));
  let subjects: SubjectOrSkip[] = [];
  let baseline: Baseline | undefined;
  let baselineName: string | undefined;
  try {
    if (checkout) {
      baselineName = checkout.name;
      const pgUp = await databases.postgresAvailable();
      baseline = await openBaseline({ dir: checkout.dir, tmpRoot, pgUp, servers, replayPool: options.replayPool, sqliteSynchronous: options.sqliteSynchronous });
      log(`baseline: the in-process, HTTP and MCP gateway cells of ${checkout.name} run beside ours`);
    }
    const built = await buildSubjects({ options, databases, servers, now: started, runTag, log, baseline });
    subjects = built.subjects;
    const { planned, all } = plan(subjects, options);
    const counters = new SequenceCounters();
    const live = subjects.filter((s): s is Subject => !isSkipped(s));
    await prepareAndWarm(live, options, counters, runTag, log);
    const cellSeconds = fitCap(options, planned.length, (Date.now() - started) / 1000, log);
    for (const cell of all) cell.target.maxSeconds = cellSeconds;
    await measure(planned, { ...options, cellSeconds }, counters, runTag, log);
    finish(all);
    const machine = await machineInfo({
      sqliteSynchronous: options.sqliteSynchronous,
      redisVersion: built.redisVersion,
      postgres: await databases.postgresAvailable(),
      loadAverage: { start: loadBefore, end: os.loadavg()[0]! },
    });
    const result: BenchResult = {
      version: 1,
      startedAt: new Date(started).toISOString(),
      durationSeconds: Math.round((Date.now() - started) / 1000),
      smoke: options.smoke,
      options: {
        ops: options.ops,
        cellSeconds: all[0]?.target.maxSeconds ?? options.cellSeconds,
        budgetSeconds: options.budgetSeconds,
        reps: options.reps,
        warmupOps: options.warmupOps,
        sections: [...options.sections],
        growthRecords: options.growthRecords,
        statsOps: options.statsOps,
        sqliteSynchronous: options.sqliteSynchronous,
        ...(baselineName ? { baseline: baselineName } : {}),
      },
      machine,
      cells: all,
      bars: evaluateBars(all, options.sqliteSynchronous),
    };
    if (options.outFile) {
      mkdirSync(path.dirname(options.outFile), { recursive: true });
      writeFileSync(options.outFile, `${JSON.stringify(result, null, 2)}\n`);
    }
    return result;
  } finally {
    for (const subject of subjects) if (!isSkipped(subject)) await subject.close().catch(() => undefined);
    await servers.stopAll();
    await databases.dropAll();
    await baseline?.dropAll();
    rmSync(tmpRoot, { recursive: true, force: true });
  }
}
