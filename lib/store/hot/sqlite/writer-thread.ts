import { Worker } from "node:worker_threads";
import { budgetExceeded } from "../../../core/budget";
import { MMAP_BYTES, type SqliteSynchronous, toStoreError } from "../../connection/sqlite-connection";
import { StoreUnavailableError } from "../../ports/gate-store";
import { toSqliteParams } from "../shared/statements";
import type { Durability } from "./group-commit";
import { WRITE_SQL, type WriteOp, applyWriteOp } from "./write-ops";
import { stopWorker } from "./stop-worker";

/**
 * The group commit of group-commit.ts, run by a worker thread on a connection of its own, so that
 * the request thread never waits inside a COMMIT: while the worker fsyncs, the request thread
 * parses, reads (WAL readers never wait for the writer) and queues the next writes.
 *
 * Durability and batching are group-commit.ts's: the writes posted in one turn of the request
 * thread travel as one message; the worker puts every message that arrived while it was busy into
 * one BEGIN IMMEDIATE … COMMIT, a savepoint per write, committed with FULL as soon as one write is
 * durable (NORMAL otherwise). One difference: a batch that mixes both commits its relaxed writes
 * first, in a NORMAL transaction of their own, so a replay's counter is answered while the claims
 * beside it wait for their fsync (the request thread is free to use that answer meanwhile). A
 * write's promise settles only after its COMMIT returned, so a read the request thread starts
 * afterwards sees it, and what was answered as durable is on disk. A crash loses only writes not yet answered, as inline; if the worker itself dies, the
 * writes it held are answered as unavailable (in doubt, as a lost connection's) and the next
 * write starts a new one.
 *
 * The worker runs from a source string (as the checkpointer does: Next's build, tsx and vitest all
 * load it): the operations' code is applyWriteOp's source, the statements WRITE_SQL's texts.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const budgetExceeded = ${budgetExceeded.toString()};
const applyWriteOp = ${applyWriteOp.toString()};
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.pragma("journal_mode = WAL");
db.pragma("foreign_keys = ON");
db.pragma("cache_size = -" + workerData.cacheKiB);
db.pragma("mmap_size = " + workerData.mmapBytes);
for (const pragma of workerData.pragmas) db.pragma(pragma);
let mode = null;
const statements = new Map();
function statement(name) {
  let prepared = statements.get(name);
  if (!prepared) {
    prepared = db.prepare(workerData.sql[name]);
    statements.set(name, prepared);
  }
  return prepared;
}
function bind(values) {
  const bound = {};
  for (let i = 0; i < values.length; i++) bound[i + 1] = typeof values[i] === "boolean" ? Number(values[i]) : values[i];
  return bound;
}
const runner = { run: (name, params) => statement(name).run(bind(params)), get: (name, params) => statement(name).get(bind(params)) };
function described(error) {
  return { message: error && error.message !== undefined ? String(error.message) : String(error), code: error && typeof error.code === "string" ? error.code : null };
}
const runBatch = db.transaction((batch, outcomes) => {
  if (batch.length === 1) {
    outcomes.push({ ok: true, value: applyWriteOp(runner, batch[0].op, budgetExceeded) });
    return;
  }
  for (const write of batch) {
    try {
      outcomes.push({ ok: true, value: db.transaction(() => applyWriteOp(runner, write.op, budgetExceeded))() });
    } catch (error) {
      outcomes.push({ ok: false, error: described(error) });
    }
  }
});
let queue = [];
let scheduled = false;
function commit(batch, want) {
  const ids = batch.map((write) => write.id);
  try {
    if (want !== mode) {
      db.pragma("synchronous = " + want);
      mode = want;
    }
    const outcomes = [];
    runBatch.immediate(batch, outcomes);
    parentPort.postMessage({ ids, outcomes });
  } catch (error) {
    parentPort.postMessage({ ids, failed: described(error) });
  }
}
function flush() {
  scheduled = false;
  const batch = queue;
  if (batch.length === 0) return;
  queue = [];
  const durable = batch.filter((write) => write.durable);
  if (durable.length === 0 || durable.length === batch.length) return commit(batch, durable.length ? workerData.durableMode : "normal");
  // Relaxed writes first, in a transaction of their own without fsync, answered while the durable
  // ones wait for the disk. None of the batch was answered yet, so committing one part before the
  // other is an order its clients could have seen anyway.
  commit(batch.filter((write) => !write.durable), "normal");
  commit(durable, workerData.durableMode);
}
parentPort.on("message", (message) => {
  if (message.writes) {
    for (const write of message.writes) queue.push(write);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  } else if (message.pragma) {
    try { db.pragma(message.pragma); } catch {}
  } else if (message.close) {
    flush();
    db.close();
    parentPort.close();
  }
});
`;

export interface WriterThreadOptions {
  file: string;
  /** better-sqlite3's entry point, resolved by the caller (checkpointer.ts, locateDriver). */
  driver: string;
  /** The setting for durable writes; relaxed ones commit with NORMAL. */
  synchronous: SqliteSynchronous;
  busyTimeoutMs: number;
  cacheMiB: number;
}

interface Pending {
  id: number;
  op: WriteOp;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Described = { message: string; code: string | null };
type Outcome = { ok: true; value: unknown } | { ok: false; error: Described };
type Answer = { ids: number[]; outcomes: Outcome[] } | { ids: number[]; failed: Described };

export class SqliteWriterThread {
  private worker: Worker | null = null;
  private queue: Pending[] = [];
  private readonly inFlight = new Map<number, Pending>();
  private nextId = 1;
  private scheduled = false;
  private closed = false;
  /** close() waiting for the last answers. */
  private drained: (() => void) | null = null;
  /** Connection settings asked for so far (the checkpointer's): a new worker applies them too. */
  private readonly pragmas = new Map<string, string>();
  /** Transactions committed and writes they carried, as group-commit.ts counts them. */
  readonly counts = { commits: 0, writes: 0 };

  constructor(private readonly options: WriterThreadOptions) {}

  write<T>(op: WriteOp, durability: Durability): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError(new Error("the gate store is closed")));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, op, durable: durability === "durable", resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the current microtasks: every write asked for in this turn travels in one message.
        setImmediate(() => this.post());
      }
    });
  }

  /** The checkpointer's hold on the writer's connection (checkpointer.ts): a PRAGMA for the worker's. */
  readonly connection = {
    open: true,
    pragma: (source: string): void => {
      this.pragmas.set(source.split("=")[0]!.trim(), source);
      this.worker?.postMessage({ pragma: source });
    },
  };

  private post(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let worker: Worker;
    try {
      worker = this.worker ?? this.spawn();
    } catch (error) {
      for (const write of batch) write.reject(new StoreUnavailableError(error));
      return;
    }
    if (this.inFlight.size === 0) worker.ref();
    for (const write of batch) this.inFlight.set(write.id, write);
    worker.postMessage({ writes: batch.map(({ id, op, durable }) => ({ id, op, durable })) });
  }

  private spawn(): Worker {
    const { file, driver, synchronous, busyTimeoutMs, cacheMiB } = this.options;
    const sql = Object.fromEntries(Object.entries(WRITE_SQL).map(([name, text]) => [name, toSqliteParams(text)]));
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driver, durableMode: synchronous, busyTimeoutMs, cacheKiB: cacheMiB * 1024, mmapBytes: MMAP_BYTES, sql, pragmas: [...this.pragmas.values()] },
    });
    worker.on("message", (answer: Answer) => this.settle(answer, worker));
    worker.on("error", (error) => this.lost(worker, error));
    worker.on("exit", (code) => this.lost(worker, new Error(`the SQLite writer thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(answer: Answer, worker: Worker): void {
    if ("failed" in answer) {
      // Nothing of the batch was committed (BEGIN or COMMIT failed): every write fails the same way.
      const error = toStoreError(revive(answer.failed));
      for (const id of answer.ids) this.take(id)?.reject(error);
    } else {
      this.counts.commits++;
      this.counts.writes += answer.ids.length;
      answer.ids.forEach((id, i) => {
        const write = this.take(id);
        const outcome = answer.outcomes[i]!;
        if (outcome.ok) write?.resolve(outcome.value);
        else write?.reject(toStoreError(revive(outcome.error)));
      });
    }
    // An idle writer never keeps the process up; one holding writes does, until they are answered.
    if (this.inFlight.size === 0) {
      if (this.worker === worker) worker.unref();
      this.drained?.();
    }
  }

  private take(id: number): Pending | undefined {
    const write = this.inFlight.get(id);
    this.inFlight.delete(id);
    return write;
  }

  /** The worker is gone: what it held is in doubt, answered as unavailable (retryable). */
  private lost(worker: Worker, cause: unknown): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const error = new StoreUnavailableError(cause);
    for (const write of this.inFlight.values()) write.reject(error);
    this.inFlight.clear();
    this.drained?.();
  }

  /** Commits what is queued, waits for every answer, then closes the worker's connection. */
  async close(): Promise<void> {
    this.post();
    this.closed = true;
    this.connection.open = false;
    if (this.inFlight.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    await stopWorker(worker, { close: true }, 2_000);
  }
}

function revive(described: Described): Error {
  const error = new Error(described.message);
  if (described.code !== null) Object.assign(error, { code: described.code });
  return error;
}
