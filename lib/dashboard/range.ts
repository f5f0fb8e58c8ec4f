/**
 * The overview's time range, as it lives in the URL: `?range=24h` for a preset that moves with the
 * clock, or `?from=…&to=…` (ISO, UTC) for a fixed custom range. Parsed leniently (a bad value
 * falls back to the last hour, never an error page) and written back in one canonical form, so a
 * shared link and a reload show the same range.
 */
export const RANGES = {
  "15m": { label: "Last 15 minutes", spanMs: 15 * 60_000 },
  "1h": { label: "Last hour", spanMs: 3_600_000 },
  "6h": { label: "Last 6 hours", spanMs: 6 * 3_600_000 },
  "24h": { label: "Last 24 h", spanMs: 86_400_000 },
  "7d": { label: "Last 7 days", spanMs: 7 * 86_400_000 },
  "30d": { label: "Last 30 days", spanMs: 30 * 86_400_000 },
} as const;

export type RangeId = keyof typeof RANGES;
export type Bucket = "minute" | "hour" | "day";
export type RangeSpec = { kind: "preset"; id: RangeId } | { kind: "custom"; from: number; to: number };

export const DEFAULT_RANGE: RangeSpec = { kind: "preset", id: "1h" };
export const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** Bars a chart can show legibly; the bucket grows until the range fits. */
const MAX_BARS = 400;
/** The stats API's longest range (1 500 day buckets); a custom range is clipped to it. */
const MAX_SPAN_MS = 1_500 * BUCKET_MS.day;

export function isRangeId(value: string | null | undefined): value is RangeId {
  return value != null && Object.hasOwn(RANGES, value);
}

interface Readable {
  get(name: string): string | null;
}

const parseTime = (value: string | null): number | null => {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
};

export function rangeFromSearch(params: Readable): RangeSpec {
  const range = params.get("range");
  if (isRangeId(range)) return { kind: "preset", id: range };
  const from = parseTime(params.get("from"));
  const to = parseTime(params.get("to"));
  if (from !== null && to !== null && from < to) return { kind: "custom", from, to: Math.min(to, from + MAX_SPAN_MS) };
  return DEFAULT_RANGE;
}

export function rangeToSearch(spec: RangeSpec): URLSearchParams {
  if (spec.kind === "preset") return new URLSearchParams({ range: spec.id });
  return new URLSearchParams({ from: new Date(spec.from).toISOString(), to: new Date(spec.to).toISOString() });
}

/** The smallest bucket that keeps the range within MAX_BARS bars. */
export function bucketFor(spanMs: number): Bucket {
  if (spanMs <= MAX_BARS * BUCKET_MS.minute) return "minute";
  if (spanMs <= MAX_BARS * BUCKET_MS.hour) return "hour";
  return "day";
}

export interface ResolvedRange {
  from: string;
  to: string;
  bucket: Bucket;
  label: string;
}

/**
 * The range's ISO ends and bucket. A preset's `to` is rounded up to the next whole bucket, so the
 * query key stays the same between polls within one bucket (and includes the current, partial
 * one); a custom range is widened to whole buckets.
 */
export function resolveRange(spec: RangeSpec, now: number): ResolvedRange {
  if (spec.kind === "preset") {
    const { spanMs, label } = RANGES[spec.id];
    const bucket = bucketFor(spanMs);
    const step = BUCKET_MS[bucket];
    const to = Math.ceil((now + 1) / step) * step;
    return { from: new Date(to - spanMs).toISOString(), to: new Date(to).toISOString(), bucket, label };
  }
  const bucket = bucketFor(spec.to - spec.from);
  const step = BUCKET_MS[bucket];
  const from = Math.floor(spec.from / step) * step;
  const to = Math.ceil(spec.to / step) * step;
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket, label: `${formatShort(from)} – ${formatShort(to)} UTC` };
}

const formatShort = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/** Kept for callers that name a preset: the same as resolveRange on that preset. */
export function rangeBounds(range: RangeId, now: number): { from: string; to: string; bucket: Bucket } {
  const { from, to, bucket } = resolveRange({ kind: "preset", id: range }, now);
  return { from, to, bucket };
}
