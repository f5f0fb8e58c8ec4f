import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { failureBackoffMs } from "../../../core/failure-backoff";
import { stopWorker } from "./stop-worker";

/**
 * Moves SQLite's WAL checkpoints off the thread that serves decisions, and keeps the WAL bounded.
 *
 * Why: better-sqlite3 is synchronous, so whatever a connection does runs on the event loop. SQLite's
 * automatic checkpoint runs inside the COMMIT of whichever write crosses its threshold: it copies
 * every frame the log holds into the database file and fsyncs it (under synchronous=FULL), and every
 * request of the process waits meanwhile. It used to be kept as a "backstop" every 8,000 frames
 * (32 MB) beside this worker, so whenever the worker fell behind (two busy cores shared by the
 * server, its clients and the worker), one unlucky commit copied and synced up to 32 MB on the
 * request thread (issue #16 item 11: a multi-second `complete` at p99 under 200 clients).
 *
 * Now the writer never checkpoints by itself while the worker runs (wal_autocheckpoint = 0). The
 * worker, with its own connection, runs a PASSIVE checkpoint (never blocks the writer) every tick,
 * sooner while it falls behind. A PASSIVE checkpoint beside a busy writer rarely leaves the log
 * fully copied at the moment of the next write, which is when SQLite restarts the log from its
 * beginning; so once the log holds `restartFrames` frames and the worker has copied (nearly) all of
 * them, it hands the last step to the writer: between two requests the writer copies the few frames
 * written since (bounded by restartFrames / 16 plus a tick's worth) and its next write starts the
 * log over. The writer's journal_size_limit then trims the file, so the WAL on disk stays near
 * `restartFrames` pages. Should the worker fail, the writer gets SQLite's own automatic
 * checkpoints back.
 *
 * Why not a RESTART checkpoint from the worker: it takes the write lock for its copy and the
 * database file's fsync, and the writer waiting for it sleeps in SQLite's busy handler (1, 2, 5,
 * 10, 15, 20 ms …) on the request thread: ~25 ms a restart, every ~1.4 s of FULL fresh pairs from
 * one client (#15's bench: −10 % and more at 1 client).
 *
 * Pace: every checkpoint that finds frames to copy fsyncs the log and then the database file, on the
 * disk the writer's FULL commits wait for, and copies each page once however often the log rewrote
 * it since the last one. So the worker comes back sooner (soonMs) only while it is behind (a
 * quarter of restartFrames left to copy, or a long log not yet handed over), not merely because the
 * log is long: at one client it keeps the interval's pace, as before #16.
 */
export interface CheckpointerOptions {
  /** Between checkpoints while the log is short (default 200 ms). */
  intervalMs?: number;
  /** Log length (frames, 4 KiB pages) from which the log is restarted (default 4,096 = 16 MiB). */
  restartFrames?: number;
  /** The longest wait between checkpoints that keep failing (default 5 s; at least intervalMs). */
  maxBackoffMs?: number;
  /** Between checkpoints while the worker is behind (default 50 ms). */
  soonMs?: number;
}

/** What the worker last saw, for tests and diagnostics. */
export interface CheckpointStats {
  ticks: number;
  /** Times the writer finished a copy the worker handed over (its next write starts the log over). */
  restarts: number;
  /** Frames in the log at the last tick, before its checkpoint. */
  logFrames: number;
  maxLogFrames: number;
  /** Checkpoints that failed (the database locked, or gone), and those in a row until the last tick. */
  failures: number;
  failuresInRow: number;
  /** The wait before the next tick, as the last tick chose it. */
  nextMs: number;
}

// The backoff is the background loops' own (core/failure-backoff.ts), its source copied in: the
// worker runs from this string, and the function uses nothing but Math.
const WORKER_SOURCE = `
const failureBackoffMs = ${failureBackoffMs.toString()};
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
const passive = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const stats = { ticks: 0, restarts: 0, logFrames: 0, maxLogFrames: 0, failures: 0, failuresInRow: 0, nextMs: workerData.intervalMs };
let timer = null;
function tick() {
  let next = workerData.intervalMs;
  let restartDue = false;
  try {
    const copied = passive.get();
    stats.ticks++;
    stats.failuresInRow = 0;
    stats.logFrames = copied.log;
    stats.maxLogFrames = Math.max(stats.maxLogFrames, copied.log);
    const behind = copied.log - copied.checkpointed;
    if (copied.log >= workerData.restartFrames && behind <= workerData.restartFrames / 16) {
      // The writer finishes it between two requests (see above): its copy is short.
      restartDue = true;
    } else if (behind >= workerData.restartFrames / 4 || copied.log >= workerData.restartFrames) {
      // Behind: come back soon. A log copied whole, or nearly, waits the interval (at one client
      // ticking sooner only added fsyncs beside the writer's commits).
      next = Math.min(next, workerData.soonMs);
    }
  } catch {
    // The database is locked, or gone (its file deleted, its disk failing): back off, doubling up to
    // a bound, with jitter, so a store that vanished costs a tick every few seconds, not a busy loop.
    stats.failures++;
    stats.failuresInRow++;
    next = failureBackoffMs(workerData.intervalMs, stats.failuresInRow, workerData.maxBackoffMs);
  }
  stats.nextMs = next;
  parentPort.postMessage({ stats, restartDue });
  timer = setTimeout(tick, next);
}
timer = setTimeout(tick, workerData.intervalMs);
parentPort.on("message", () => { clearTimeout(timer); db.close(); parentPort.close(); });
`;

/** SQLite's default automatic checkpoint (frames): what the writer falls back to without the worker. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1_000;
const PAGE_BYTES = 4_096;

/** The connection that writes: the request thread's, or the writer thread's (writer-thread.ts). */
export interface WriterConnection {
  readonly open: boolean;
  pragma(source: string): unknown;
}

export class SqliteCheckpointer {
  private worker: Worker | null = null;
  private writer: WriterConnection | null = null;
  private latest: CheckpointStats = { ticks: 0, restarts: 0, logFrames: 0, maxLogFrames: 0, failures: 0, failuresInRow: 0, nextMs: 0 };
  private restarts = 0;

  private constructor(
    private readonly file: string,
    private readonly driver: string,
    private readonly intervalMs: number,
    private readonly restartFrames: number,
    private readonly maxBackoffMs: number,
    private readonly soonMs: number,
  ) {}

  /**
   * A checkpointer for `file`, or null when the driver cannot be located from the working
   * directory (an embedding that runs elsewhere keeps SQLite's own automatic checkpoints).
   */
  static for(file: string, options: CheckpointerOptions = {}): SqliteCheckpointer | null {
    const driver = locateDriver();
    const intervalMs = options.intervalMs ?? 200;
    const maxBackoffMs = Math.max(intervalMs, options.maxBackoffMs ?? 5_000);
    return driver ? new SqliteCheckpointer(path.resolve(file), driver, intervalMs, options.restartFrames ?? 4_096, maxBackoffMs, options.soonMs ?? 50) : null;
  }

  /**
   * Starts the worker once (later calls do nothing) and takes checkpoints away from `writer`, the
   * connection that serves requests; it gets them back if the worker fails.
   */
  start(writer?: WriterConnection): void {
    if (this.worker) return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver: this.driver, intervalMs: this.intervalMs, restartFrames: this.restartFrames, maxBackoffMs: this.maxBackoffMs, soonMs: this.soonMs },
    });
    this.worker = worker;
    // A checkpointer never keeps a process alive, and its failure only brings automatic checkpoints back.
    worker.unref();
    worker.on("message", (report: { stats: CheckpointStats; restartDue: boolean }) => {
      this.latest = report.stats;
      if (report.restartDue) this.finishCopy();
    });
    worker.on("error", () => {
      if (this.worker === worker) this.worker = null;
      this.handBack();
    });
    if (writer) {
      this.writer = writer;
      writer.pragma("wal_autocheckpoint = 0");
      writer.pragma(`journal_size_limit = ${this.restartFrames * PAGE_BYTES}`);
    }
  }

  get running(): boolean {
    return this.worker !== null;
  }

  /** What the worker reported last. */
  get stats(): CheckpointStats {
    return { ...this.latest, restarts: this.restarts };
  }

  /**
   * The worker copied (nearly) all of a long log: the writer copies what is left, which is what a
   * restart needs — its next write then starts the log from the beginning. Runs between two
   * requests (a message is handled outside any transaction); PASSIVE never waits for a lock. A
   * writer thread's connection runs it between two of its batches and answers nothing.
   */
  private finishCopy(): void {
    const writer = this.writer;
    if (!writer?.open) return;
    try {
      const result = writer.pragma("wal_checkpoint(PASSIVE)");
      const copied = Array.isArray(result) ? (result[0] as { busy: number; log: number; checkpointed: number } | undefined) : undefined;
      if (copied && copied.busy === 0 && copied.checkpointed === copied.log) this.restarts++;
    } catch {
      // Busy or closing: the worker hands it over again on a later tick.
    }
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    await stopWorker(worker, "stop", 1_000);
    this.handBack();
  }

  /** The writer checkpoints for itself again (SQLite's default), unless it is already closed. */
  private handBack(): void {
    const writer = this.writer;
    this.writer = null;
    if (writer?.open) writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
  }
}

/** better-sqlite3 as installed for this project: bundlers rewrite `require.resolve`, so ask from the cwd. */
export function locateDriver(): string | null {
  try {
    return createRequire(path.join(process.cwd(), "package.json")).resolve("better-sqlite3");
  } catch {
    return null;
  }
}
