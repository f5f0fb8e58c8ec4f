/** Gives the run's turn up (idempotent): the next begin in line, if any, has it at once. */
export type Release = () => void;

/**
 * Begins waiting for a turn, in this process, across all runs: past it a step is decided on the
 * history as read, without a turn (as before issue #38 §1a), never refused. Each waiter is one
 * closure in an array, and every waiter is an HTTP request (or an MCP call) in flight anyway.
 */
export const MAX_WAITING_TURNS = 4_096;

/**
 * One loop step at a time per run, in this process (issue #38 §1a). The loop detector decides a
 * step on the run's history; steps of one run decided at once each read it before the others were
 * written, so a burst of duplicates was replayed where the same calls in a row are blocked. A begin
 * that is a step takes its run's turn, reads the history again and is decided and written before
 * the next step of the run reads it. Runs are independent: a run's entry exists only while one of
 * its begins holds the turn, and goes with the last release. A begin that is no step (a concurrent
 * duplicate, a waiter, a poll, a transport retry, a read, an undo) never takes a turn, and a begin
 * gives its turn up before it waits on a live attempt.
 */
export class RunTurns {
  /** Per run with a turn held: the begins waiting for it, in arrival order. */
  private readonly runs = new Map<string, (() => void)[]>();
  private waiting = 0;

  constructor(private readonly maxWaiting = MAX_WAITING_TURNS) {}

  /** The run's turn if nobody holds it (no wait), else null. */
  tryTake(run: string): Release | null {
    if (this.runs.has(run)) return null;
    this.runs.set(run, []);
    return this.releaser(run);
  }

  /** The run's turn, once every begin ahead has given it up; null when too many begins wait already (MAX_WAITING_TURNS). */
  async take(run: string): Promise<Release | null> {
    const line = this.runs.get(run);
    if (!line) return this.tryTake(run);
    if (this.waiting >= this.maxWaiting) return null;
    this.waiting++;
    await new Promise<void>((resolve) => line.push(resolve));
    return this.releaser(run);
  }

  private releaser(run: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const line = this.runs.get(run)!;
      const next = line.shift();
      if (next === undefined) {
        this.runs.delete(run);
        return;
      }
      // Handed over: the run's entry stays, held by the next in line.
      this.waiting--;
      next();
    };
  }

  /** Runs with a turn held, and begins waiting (tests, diagnostics). */
  get size(): { runs: number; waiting: number } {
    return { runs: this.runs.size, waiting: this.waiting };
  }
}
