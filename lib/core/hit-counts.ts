/** A name (a key, a run) and how many dedup hits it drove. */
export interface NamedHits {
  name: string;
  hits: number;
}

/**
 * Adds per-window heavy hitters into a running tally and keeps the `keep` heaviest (ties by
 * name, so every instance keeps the same ones). Returns how many distinct names the union had
 * before trimming: exact while it stays under `keep`, a lower bound after.
 */
export function mergeHits(total: readonly NamedHits[], window: readonly NamedHits[], keep: number): { merged: NamedHits[]; distinct: number } {
  const sums = new Map<string, number>();
  for (const { name, hits } of [...total, ...window]) sums.set(name, (sums.get(name) ?? 0) + hits);
  const all = [...sums].map(([name, hits]) => ({ name, hits }));
  all.sort((a, b) => b.hits - a.hits || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { merged: all.slice(0, keep), distinct: all.length };
}
