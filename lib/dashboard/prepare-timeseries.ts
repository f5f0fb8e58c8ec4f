import type { TimeseriesResponse } from "../contract/stats";
import { BUCKET_MS } from "./range";
import { type GroupCounts, emptyCounts, groupOf, sumCounts } from "./decision-groups";

/** One bucket of the stacked chart: begins per decision group (every decision counted once). */
export interface DecisionPoint extends GroupCounts {
  /** Bucket start, epoch ms. */
  at: number;
  /** Bucket end (exclusive), epoch ms: with `at`, the window a click opens the calls of. */
  end: number;
  /** Every begin in the bucket: the sum of the groups. */
  begins: number;
}

/** One point of the dedup-rate line. */
export interface RatePoint {
  at: number;
  end: number;
  begins: number;
  dedupHits: number;
  /** Percent of begins answered with a dedup hit; null where the bucket had no begins (a gap, not a zero). */
  rate: number | null;
}

const stepOf = (data: TimeseriesResponse) => (data.bucketSeconds > 0 ? data.bucketSeconds * 1000 : BUCKET_MS[data.bucket]);

/**
 * Begins per decision group per bucket, over every tool or only `tool`, for the stacked chart.
 * Only begin series count (a complete is not a decision); empty buckets are filled with zeros so
 * bars line up, and at most `maxPoints` of the latest buckets are kept.
 */
export function prepareDecisionSeries(data: TimeseriesResponse, options: { tool?: string; maxPoints?: number } = {}): DecisionPoint[] {
  const step = stepOf(data);
  const from = Date.parse(data.from);
  const to = Date.parse(data.to);
  const first = Math.max(from, to - step * (options.maxPoints ?? 500));
  const slot = (at: number): DecisionPoint => ({ at, end: at + step, begins: 0, ...emptyCounts() });
  const byAt = new Map<number, DecisionPoint>();
  for (let at = first; at < to; at += step) byAt.set(at, slot(at));
  for (const series of data.series) {
    if (series.type !== "begin") continue;
    if (options.tool !== undefined && series.tool !== options.tool) continue;
    const group = groupOf(series.decision);
    for (const point of series.points) {
      const at = Date.parse(point.at);
      if (at < first || at >= to) continue;
      const entry = byAt.get(at) ?? slot(at);
      entry[group] += point.count;
      entry.begins += point.count;
      byAt.set(at, entry);
    }
  }
  return [...byAt.values()].sort((a, b) => a.at - b.at);
}

/** The dedup rate per bucket, from the same points: what share of the calls did not run the tool again. */
export function prepareRateSeries(points: DecisionPoint[]): RatePoint[] {
  return points.map((p) => ({
    at: p.at,
    end: p.end,
    begins: p.begins,
    dedupHits: p.dedupHits,
    rate: p.begins === 0 ? null : Math.round((p.dedupHits / p.begins) * 1000) / 10,
  }));
}

/** The tools that have begins in the series, by name. */
export function toolsOf(data: TimeseriesResponse): string[] {
  return [...new Set(data.series.filter((s) => s.type === "begin" && s.total > 0).map((s) => s.tool))].sort();
}

/** Whether the chart has anything to draw. */
export function hasTraffic(points: DecisionPoint[]): boolean {
  return points.some((p) => sumCounts(p) > 0);
}

/** Whether the points fall on more than one UTC day: then every tick needs its date. */
export function spansDays(points: readonly { at: number }[]): boolean {
  if (points.length < 2) return false;
  const day = (at: number) => Math.floor(at / BUCKET_MS.day);
  return day(points[0]!.at) !== day(points[points.length - 1]!.at);
}

/** Axis label for a bucket start: a time of day, with the date (MM-DD) when the range spans days; a date for day buckets. */
export function formatBucket(at: number, bucket: TimeseriesResponse["bucket"], withDate = false): string {
  const iso = new Date(at).toISOString();
  if (bucket === "day") return iso.slice(5, 10);
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** What one bar stands for, in words: the y axis's unit. */
export function perBucketLabel(bucket: TimeseriesResponse["bucket"]): string {
  return { minute: "per minute", hour: "per hour", day: "per day" }[bucket];
}
