/**
 * One step at a time per run, in this process, for begins that already lost a loop race (issue #38
 * §1a). A run's steps are written one after the other (GateEvent.loopAfter); without a queue, N
 * steps of one run at once each retry until they win, N²/2 reads and refused writes in all (64 first
 * begins of one run at once: 2.8 s instead of 27 ms on SQLite). A loser queues here instead and is
 * decided again once the step ahead of it is written. Only losers queue: a begin's first decision
 * never waits for anyone, and the queue is left before a wait on a live attempt, so an in_progress
 * answer is never held behind a claim. Other instances still race through the store's guard.
 */
export class RunLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves when the run is ours; the function returned releases it (idempotent). */
  async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let open!: () => void;
    const mine = new Promise<void>((resolve) => (open = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      open();
      // The last holder leaves no entry behind: the map holds only runs with begins in flight.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
