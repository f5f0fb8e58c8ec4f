/** The overview's time ranges: span and the stats bucket that keeps the chart readable. */
export const RANGES = {
  "1h": { label: "Last hour", spanMs: 3_600_000, bucket: "minute" },
  "24h": { label: "Last 24 h", spanMs: 86_400_000, bucket: "hour" },
  "7d": { label: "Last 7 days", spanMs: 7 * 86_400_000, bucket: "hour" },
  "30d": { label: "Last 30 days", spanMs: 30 * 86_400_000, bucket: "day" },
} as const;

export type RangeId = keyof typeof RANGES;
export type Bucket = (typeof RANGES)[RangeId]["bucket"];

export function isRangeId(value: string | null | undefined): value is RangeId {
  return value != null && Object.hasOwn(RANGES, value);
}

const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * The range's ISO ends, with `to` rounded up to the next whole bucket so that a query key stays
 * the same between polls within one bucket (and includes the current, partial bucket).
 */
export function rangeBounds(range: RangeId, now: number): { from: string; to: string; bucket: Bucket } {
  const { spanMs, bucket } = RANGES[range];
  const step = BUCKET_MS[bucket];
  const to = Math.ceil((now + 1) / step) * step;
  return { from: new Date(to - spanMs).toISOString(), to: new Date(to).toISOString(), bucket };
}
