import type { RetentionStore } from "../store/ports/insight-store";

const DAY_MS = 86_400_000;

export interface RetentionConfig {
  /** Raw ledger events older than this are deleted; their rollups stay. */
  eventRetentionDays: number;
  /** Rollups (and closed storms) older than this are deleted. */
  rollupRetentionDays: number;
  /** Rows per delete statement: short enough never to hold a lock for long. */
  batchSize?: number;
}

export interface PurgeReport {
  records: number;
  events: number;
  rollups: number;
  storms: number;
  /** True when a table still had more to delete than this run was allowed to. */
  more: boolean;
  ms: number;
}

export interface CollectOptions {
  /** Batches per table and project in this run; the next run picks up the rest. */
  maxBatches?: number;
}

const DEFAULT_BATCH = 1_000;

/** Gives the event loop back between batches: on SQLite every statement blocks the process. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Purges what has outlived its use: records past their TTL (never one whose lease is live),
 * ledger events past the event retention, rollups and closed storms past the rollup retention.
 * Idempotent and bounded: several instances (or `npm run gc` beside a running server) may run it
 * at once; each deletes in primary-key batches and a row is deleted by whoever reaches it first.
 */
export class Collector {
  constructor(
    private readonly store: RetentionStore,
    private readonly config: RetentionConfig,
    private readonly clock: () => number = Date.now,
  ) {}

  async collect(options: CollectOptions = {}): Promise<PurgeReport> {
    const started = performance.now();
    const now = this.clock();
    const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
    const batch = this.config.batchSize ?? DEFAULT_BATCH;
    let more = false;

    const drain = async (deleteBatch: () => Promise<number>): Promise<number> => {
      let total = 0;
      for (let batches = 0; ; batches++) {
        if (batches >= maxBatches) {
          more = true;
          return total;
        }
        const deleted = await deleteBatch();
        total += deleted;
        if (deleted < batch) return total;
        await breathe();
      }
    };

    const records = await drain(() => this.store.purgeExpiredRecords(now, batch));
    const eventsBefore = now - this.config.eventRetentionDays * DAY_MS;
    let events = 0;
    for (const projectId of await this.store.listProjectIds()) {
      events += await drain(() => this.store.purgeEvents(projectId, eventsBefore, batch));
    }
    const rollupsBefore = now - this.config.rollupRetentionDays * DAY_MS;
    const rollups = await drain(() => this.store.purgeRollups(rollupsBefore, batch));
    const storms = await drain(() => this.store.purgeClosedStorms(rollupsBefore, batch));
    return { records, events, rollups, storms, more, ms: Math.round(performance.now() - started) };
  }
}
