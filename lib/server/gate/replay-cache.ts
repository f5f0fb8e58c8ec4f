import type { CallRecord } from "../../core/record";
import { BoundedGuesses } from "./bounded-guesses";

/**
 * Completed records this process answered a replay from, by (project, key): a replay of the same
 * key then skips reading the record. Never trusted on its own: a cached record only ever answers
 * a replay through the counter's guarded write (GateStore.recordReplay, on the record's id and
 * version), so an eviction, a resend raising the key's generation, a purge or any other change by
 * any process makes that write miss, and the begin is read and decided again. Every decision but
 * a replay is made on a fresh read (gate-service.ts). Bounded by clearing (BoundedGuesses): a lost
 * entry only costs the read it saved.
 */
export class ReplayCache {
  private readonly records: BoundedGuesses<CallRecord>;

  constructor(limit = 10_000) {
    this.records = new BoundedGuesses<CallRecord>(limit);
  }

  get(projectId: string, key: string): CallRecord | undefined {
    return this.records.get(cacheKey(projectId, key));
  }

  /** Whether `record` is the cached object itself (identity: a fresh read of the same row is not). */
  holds(record: CallRecord): boolean {
    return this.records.get(cacheKey(record.projectId, record.key)) === record;
  }

  /** A replay of `record` was just counted at its version: it is the key's record, completed. */
  replayed(record: CallRecord): void {
    this.records.set(cacheKey(record.projectId, record.key), record);
  }

  /** The guarded write missed: whatever is cached for the key is stale. */
  forget(record: CallRecord): void {
    this.records.delete(cacheKey(record.projectId, record.key));
  }
}

function cacheKey(projectId: string, key: string): string {
  return `${projectId}\u0000${key}`;
}
