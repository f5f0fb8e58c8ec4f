import type { CallSignature } from "../../../core/loop-detector";
import type { GateEvent } from "../../ports/gate-store";

export interface WriteBehindOptions {
  /** The longest a queued event waits for its batch when traffic is light (ms). */
  maxDelayMs?: number;
  /** A batch this large is written at once, without waiting for the timer. */
  batchSize?: number;
  /** Events held at most (queued and being written): beyond it a decision waits for a flush. */
  capacity?: number;
}

/**
 * Defaults: a replay's ledger line reaches the database within about 5 ms plus one commit. The
 * storm detector judges a window only after a grace of at least 250 ms (core/storm-windows.ts), so
 * the lag is far inside it; the capacity bounds what a hard crash can lose and the memory held
 * while the store is down.
 */
export const WRITE_BEHIND_DEFAULTS: Required<WriteBehindOptions> = { maxDelayMs: 5, batchSize: 64, capacity: 1_024 };

/** After a failed write, the queued events are tried again this long after, then twice as long, up to the cap. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2_000;

/**
 * The write-behind ledger of decision-only events: events that record a decision and change no
 * record (a replay's line, in_progress, refused, conflict, blocked, preview_required,
 * approval_required). The decision is answered as soon as its event is queued; the queue is
 * written in one statement or transaction per batch, within `maxDelayMs` or at `batchSize`.
 *
 * Nothing is dropped silently: a failed batch stays queued (ids make the insert idempotent, so a
 * batch whose commit was in doubt is simply written again) and is retried; once `capacity` events
 * are held, a new one waits for a flush, and fails with the store's error if the flush fails.
 * What a hard crash (kill -9, power cut) can lose is what is held at that moment: at most
 * `capacity` events, in practice the last few milliseconds' worth. Claims, completions and every
 * other record change never come here.
 *
 * Readers in this process see every queued event: `pendingLoopSteps` for the loop detector, and
 * `flush` (read your own writes) before the ledger is read.
 */
export class LedgerWriteBehind {
  private queue: GateEvent[] = [];
  /** The batch being written: still pending for readers until its commit is known. */
  private writing: GateEvent[] = [];
  /** The held (queued or being written) loop steps, per project and run: the loop detector reads them on every begin. */
  private readonly heldSteps = new Map<string, GateEvent[]>();
  private inFlight: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retryMs = RETRY_MIN_MS;
  private stopped = false;
  /** A background flush is under way (or waiting for the one in flight); `again`: more was asked meanwhile. */
  private kicked = false;
  private again = false;
  private readonly options: Required<WriteBehindOptions>;
  /** Batches written and events they carried (tests, diagnostics). */
  readonly counts = { batches: 0, events: 0 };

  constructor(
    private readonly write: (events: readonly GateEvent[]) => Promise<void>,
    options: WriteBehindOptions = {},
  ) {
    this.options = { ...WRITE_BEHIND_DEFAULTS, ...options };
  }

  /** Events queued or being written. */
  get pending(): number {
    return this.queue.length + this.writing.length;
  }

  /** Queues the event; waits only when `capacity` events are already held (backpressure). */
  async add(event: GateEvent): Promise<void> {
    if (this.stopped) throw new Error("the gate store is closed: no decision can be recorded");
    while (this.pending >= this.options.capacity) await this.flush();
    this.queue.push(event);
    if (isLoopStep(event)) {
      const run = runKey(event.projectId, event.runId);
      const steps = this.heldSteps.get(run);
      if (steps) steps.push(event);
      else this.heldSteps.set(run, [event]);
    }
    if (this.queue.length >= this.options.batchSize) this.kick();
    else this.timer ??= setTimeout(this.onTimer, this.options.maxDelayMs);
  }

  private readonly onTimer = () => {
    this.timer = null;
    this.kick();
  };

  /** One background flush at a time: a batch's worth of adds does not start a flush each. */
  private kick(): void {
    if (this.kicked) {
      this.again = true;
      return;
    }
    this.kicked = true;
    void this.flush()
      .catch(() => undefined)
      .finally(() => {
        this.kicked = false;
        // Asked for while this one ran: what was queued since goes now (a failed write has its retry timer).
        if (this.again) {
          this.again = false;
          if (this.queue.length > 0 && this.timer === null) this.kick();
        }
      });
  }

  /**
   * Writes everything queued now (after any batch under way) and resolves once it is committed;
   * rejects with the store's error when the write fails (the events stay queued for a retry).
   */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight.catch(() => undefined);
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.writing = batch;
    const written = this.write(batch).then(
      () => {
        this.forgetSteps(batch);
        this.counts.batches++;
        this.counts.events += batch.length;
        this.retryMs = RETRY_MIN_MS;
      },
      (error: unknown) => {
        // Back to the front, in order: they were decided before anything queued since.
        this.queue = batch.concat(this.queue);
        this.scheduleRetry();
        throw error;
      },
    );
    this.inFlight = written.finally(() => {
      this.writing = [];
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private scheduleRetry(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped) return;
    // Unref'd: a process that is done otherwise does not stay up to retry a database that is down.
    this.timer = setTimeout(this.onTimer, this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /**
   * The run's loop steps not yet known to be committed, newest first, with their ids: the loop
   * detector merges them with what it read (a replay answered a moment ago is a step of the run).
   */
  pendingLoopSteps(projectId: string, runId: string): (CallSignature & { id: string })[] {
    const held = this.heldSteps.get(runKey(projectId, runId));
    if (!held) return [];
    return held
      .map((event) => ({ id: event.id, tool: event.tool, argsFingerprint: event.argsFingerprint! }))
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  /** A committed batch's loop steps are the database's now: only its own runs are touched. */
  private forgetSteps(batch: readonly GateEvent[]): void {
    const written = new Set<string>();
    const runs = new Set<string>();
    for (const event of batch) {
      if (!isLoopStep(event)) continue;
      written.add(event.id);
      runs.add(runKey(event.projectId, event.runId));
    }
    for (const run of runs) {
      const left = (this.heldSteps.get(run) ?? []).filter((event) => !written.has(event.id));
      if (left.length === 0) this.heldSteps.delete(run);
      else this.heldSteps.set(run, left);
    }
  }

  /** Stops the timer; the caller flushes first if the events must be kept (close). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

function isLoopStep(event: GateEvent): boolean {
  return event.loopStep && event.argsFingerprint !== null;
}

function runKey(projectId: string, runId: string): string {
  return `${projectId}\u0000${runId}`;
}

/**
 * The loop detector's read: the newest `limit` steps from the database and from the events still
 * held in this process, without duplicates (a batch may be committed while it is read), newest first.
 */
export function mergeLoopSteps(read: readonly (CallSignature & { id: string })[], held: readonly (CallSignature & { id: string })[], limit: number): CallSignature[] {
  if (held.length === 0) return read.map(({ tool, argsFingerprint }) => ({ tool, argsFingerprint }));
  const byId = new Map<string, CallSignature & { id: string }>();
  for (const step of [...read, ...held]) byId.set(step.id, step);
  return [...byId.values()]
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, limit)
    .map(({ tool, argsFingerprint }) => ({ tool, argsFingerprint }));
}
