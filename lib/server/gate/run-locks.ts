/**
 * One begin at a time per run, in this process, while the loop detector decides on the run's
 * history (issue #38 §1a). Without it, duplicates of one call sent at once each read the history
 * before the others' steps were written, so none of them saw the loop sequential calls make, and
 * the policy simulator (which replays in order) rightly predicted blocks the gate never gave.
 * Released as soon as the begin is decided or starts waiting on a live attempt: a wait is never a
 * loop step, so it holds nobody up.
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
