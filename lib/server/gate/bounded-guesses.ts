/**
 * Per-process hints (the policy last seen per tool, the tool of a call this process began): bounded
 * by clearing, not evicting one by one, since a lost hint only costs a second read.
 */
export class BoundedGuesses<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit = 10_000) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.limit && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
