/**
 * Rows the MCP gateway reads on every request (a project's outbound allowlist, an upstream's row,
 * an MCP session), kept for a second in this process: each read is a Prisma round trip, and
 * together they were most of the gateway's added latency (issue #34 §4). A change made on this
 * instance is forgotten at once (`forget`, `clear`); one made on another instance is seen within
 * `ttlMs`. Concurrent misses share one load; a failed load is not kept. Bounded by clearing.
 */
export class ShortCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
    private readonly limit = 10_000,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    if (this.entries.size >= this.limit) this.entries.clear();
    const value = load();
    const entry = { value, until: now + this.ttlMs };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  /** Replaces a kept value (a row this process just wrote), keeping its expiry. */
  update(key: string, value: V): void {
    const hit = this.entries.get(key);
    if (hit) this.entries.set(key, { value: Promise.resolve(value), until: hit.until });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** How long the gateway's per-request rows are kept: a change on another instance takes effect within it. */
export const GATEWAY_ROW_TTL_MS = 1_000;
