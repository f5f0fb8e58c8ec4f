/**
 * The wait before a background loop's next pass after `failuresInRow` failed passes in a row:
 * the loop's own interval while it succeeds, then doubling up to `maxMs`, with "equal jitter" (half
 * fixed, half random) so instances that lost one database together do not retry in step.
 */
export function failureBackoffMs(intervalMs: number, failuresInRow: number, maxMs: number, random: () => number = Math.random): number {
  if (failuresInRow <= 0) return intervalMs;
  const ceiling = Math.max(intervalMs, maxMs);
  const backoff = Math.min(ceiling, intervalMs * 2 ** Math.min(failuresInRow, 30));
  return Math.round(backoff / 2 + random() * (backoff / 2));
}
