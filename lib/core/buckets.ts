/** Chart buckets, aligned to UTC (epoch multiples), and ranges widened to whole buckets. */
export const BUCKET_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type Bucket = keyof typeof BUCKET_MS;

/** Buckets one time series may hold: a minute series spans a day, an hour series two months. */
export const MAX_BUCKETS = 1_500;

/** Epoch ms, `to` exclusive. */
export interface TimeRange {
  from: number;
  to: number;
}

export function alignRange(from: number, to: number, alignMs: number): TimeRange {
  return { from: Math.floor(from / alignMs) * alignMs, to: Math.ceil(to / alignMs) * alignMs };
}
