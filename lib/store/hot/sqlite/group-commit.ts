import type Database from "better-sqlite3";
import { type SqliteStatements, type SqliteSynchronous, toStoreError } from "../../connection/sqlite-connection";

/**
 * durable: the write changes what a later decision will be (a claim, a completion, a lease), so its
 * commit waits for the disk under synchronous=FULL. relaxed: the write only records a decision that
 * was already made (a replay's counter and event, a refusal, a tool sighting); losing the last few of
 * those to a power cut changes no answer, so their commit skips the fsync.
 */
export type Durability = "durable" | "relaxed";

interface PendingWrite {
  work: () => unknown;
  /** Called with the write's value once it is committed, before anyone hears of it. */
  afterCommit?: (value: unknown) => void;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for one better-sqlite3 connection that nothing else writes through. Writes asked
 * for in the same turn of the event loop share one BEGIN IMMEDIATE … COMMIT (and so one fsync);
 * each runs in its own savepoint, so one write's failure rolls back only that write.
 *
 * Why it is sound: WAL frames are appended in commit order and a FULL commit syncs the whole log,
 * so a durable commit also makes every relaxed commit before it durable; a relaxed commit is never
 * reordered before a durable one. A batch commits as FULL as soon as one of its writes is durable.
 */
export class SqliteGroupCommit {
  private queue: PendingWrite[] = [];
  /** Transactions committed and writes they carried: writes ÷ commits is the batching achieved. */
  readonly counts = { commits: 0, writes: 0 };
  private scheduled = false;
  /** The connection's current setting: the last one set here, or whatever it was opened with. */
  private mode: SqliteSynchronous | "other";
  private readonly runBatch: Database.Transaction<(batch: PendingWrite[], outcomes: Outcome[]) => void>;

  constructor(
    private readonly sql: SqliteStatements,
    /** The setting for durable writes; relaxed writes always commit with NORMAL. */
    private readonly durableMode: SqliteSynchronous,
  ) {
    const db = sql.db;
    const opened = Number(db.pragma("synchronous", { simple: true }));
    this.mode = opened === 2 ? "full" : opened === 1 ? "normal" : "other";
    this.runBatch = db.transaction((batch: PendingWrite[], outcomes: Outcome[]) => {
      // Alone, a write needs no savepoint: its failure rolls back the whole (its own) transaction.
      if (batch.length === 1) {
        outcomes.push({ ok: true, value: batch[0]!.work() });
        return;
      }
      for (const write of batch) {
        try {
          // Inside the batch's transaction, better-sqlite3 runs this one as a SAVEPOINT.
          outcomes.push({ ok: true, value: db.transaction(write.work)() });
        } catch (error) {
          outcomes.push({ ok: false, error: toStoreError(error) });
        }
      }
    });
  }

  /**
   * `afterCommit`: runs with the write's value right after its batch commits, in the same turn
   * (before any promise settles): what this connection caches of its own writes (run-state-cache.ts)
   * is then never behind what it committed.
   */
  write<T>(work: () => T, durability: Durability = "durable", afterCommit?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, afterCommit: afterCommit as ((value: unknown) => void) | undefined, durable: durability === "durable", resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the current microtasks: every request ready in this turn joins the batch.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits what is queued now (before closing the connection). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const outcomes: Outcome[] = [];
    let done = false;
    const committed = this.sql.guard(() => {
      this.useMode(batch.some((write) => write.durable) ? this.durableMode : "normal");
      this.runBatch.immediate(batch, outcomes);
      done = true;
    });
    if (done) afterCommits(batch, outcomes);
    committed.then(
      () => {
        this.counts.commits++;
        this.counts.writes += batch.length;
        batch.forEach((write, i) => settle(write, outcomes[i]!));
      },
      // Nothing of the batch was committed (BEGIN or COMMIT failed): every write fails the same way.
      (error) => batch.forEach((write) => write.reject(error)),
    );
  }

  /** PRAGMA synchronous applies to the connection's next commits; it is set only when it changes. */
  private useMode(mode: SqliteSynchronous): void {
    if (mode === this.mode) return;
    this.sql.db.pragma(`synchronous = ${mode.toUpperCase()}`);
    this.mode = mode;
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function afterCommits(batch: PendingWrite[], outcomes: Outcome[]): void {
  batch.forEach((write, i) => {
    const outcome = outcomes[i]!;
    if (!outcome.ok || !write.afterCommit) return;
    try {
      write.afterCommit(outcome.value);
    } catch (error) {
      // The write is committed whatever a cache made of it: it is answered as committed.
      console.error("[idemgate] sqlite: after-commit hook failed", error);
    }
  });
}

function settle(write: PendingWrite, outcome: Outcome): void {
  if (outcome.ok) write.resolve(outcome.value);
  else write.reject(outcome.error);
}
