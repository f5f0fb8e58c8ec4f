import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * Moves SQLite's WAL checkpoints off the thread that serves decisions.
 *
 * Why: with synchronous=NORMAL a commit never waits for the disk, but every ~1,000 WAL frames the
 * committing connection runs a checkpoint, and that checkpoint fsyncs everything written since the
 * last one. On the request thread it cost as much as the commits themselves (measured: a replay's
 * ledger write took 250 µs with automatic checkpoints, 140 µs without). Here a worker thread with
 * its own connection runs PASSIVE checkpoints (never blocking the writer) on a timer, so the
 * writer's own automatic checkpoint, raised to a backstop (the store sets it), only fires when the
 * worker falls behind — and then finds little left to copy. The writer's backstop also restarts the
 * WAL from its beginning once everything is copied, which a PASSIVE checkpoint running beside a
 * busy writer cannot do, so the log never grows past the backstop by much.
 */
export interface CheckpointerOptions {
  intervalMs?: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const timer = setInterval(() => {
  try { checkpoint.get(); } catch { /* busy or closing: the next tick, or the writer's backstop, does it */ }
}, workerData.intervalMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export class SqliteCheckpointer {
  private worker: Worker | null = null;

  private constructor(
    private readonly file: string,
    private readonly driver: string,
    private readonly intervalMs: number,
  ) {}

  /**
   * A checkpointer for `file`, or null when the driver cannot be located from the working
   * directory (an embedding that runs elsewhere keeps SQLite's own automatic checkpoints).
   */
  static for(file: string, options: CheckpointerOptions = {}): SqliteCheckpointer | null {
    const driver = locateDriver();
    return driver ? new SqliteCheckpointer(path.resolve(file), driver, options.intervalMs ?? 200) : null;
  }

  /** Starts the worker once; later calls do nothing. */
  start(): void {
    if (this.worker) return;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.file, driver: this.driver, intervalMs: this.intervalMs } });
    // A checkpointer never keeps a process alive, and its failure only brings the backstop back.
    this.worker.unref();
    this.worker.on("error", () => {
      this.worker = null;
    });
  }

  get running(): boolean {
    return this.worker !== null;
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("stop");
    await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref())]);
    await worker.terminate();
  }
}

/** better-sqlite3 as installed for this project: bundlers rewrite `require.resolve`, so ask from the cwd. */
function locateDriver(): string | null {
  try {
    return createRequire(path.join(process.cwd(), "package.json")).resolve("better-sqlite3");
  } catch {
    return null;
  }
}
