/**
 * Wakes `waitMs` latches in this process as soon as a record changes here. Across processes the
 * latch falls back to polling, so this is only a shortcut, never the mechanism.
 */
export class OutcomeWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  wait(recordKey: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(recordKey);
      if (!set) this.waiting.set(recordKey, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set!.delete(done);
        if (set!.size === 0 && this.waiting.get(recordKey) === set) this.waiting.delete(recordKey);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      set.add(done);
    });
  }

  notify(recordKey: string): void {
    const set = this.waiting.get(recordKey);
    if (set) for (const done of [...set]) done();
  }
}
