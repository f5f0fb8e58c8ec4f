import type { TimeseriesResponse } from "../contract/stats";

export interface DecisionPoint {
  /** Bucket start, epoch ms. */
  at: number;
  executions: number;
  dedupHits: number;
}

const EXECUTIONS = new Set(["execute", "verify"]);
const DEDUP_HITS = new Set(["replay", "in_progress", "refused"]);
const BUCKET_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/**
 * Executions vs dedup hits per bucket over every tool, for the stacked chart. Only begin series
 * count (a complete is not a decision); empty buckets are filled with zeros so bars line up.
 */
export function prepareDecisionSeries(data: TimeseriesResponse, maxPoints = 500): DecisionPoint[] {
  const step = data.bucketSeconds > 0 ? data.bucketSeconds * 1000 : BUCKET_MS[data.bucket];
  const from = Date.parse(data.from);
  const to = Date.parse(data.to);
  const byAt = new Map<number, DecisionPoint>();
  const first = Math.max(from, to - step * maxPoints);
  for (let at = first; at < to; at += step) byAt.set(at, { at, executions: 0, dedupHits: 0 });
  for (const series of data.series) {
    if (series.type !== "begin") continue;
    const field = EXECUTIONS.has(series.decision) ? "executions" : DEDUP_HITS.has(series.decision) ? "dedupHits" : null;
    if (!field) continue;
    for (const point of series.points) {
      const at = Date.parse(point.at);
      if (at < first || at >= to) continue;
      const slot = byAt.get(at) ?? { at, executions: 0, dedupHits: 0 };
      slot[field] += point.count;
      byAt.set(at, slot);
    }
  }
  return [...byAt.values()].sort((a, b) => a.at - b.at);
}

/** Whether the chart has anything to draw. */
export function hasTraffic(points: DecisionPoint[]): boolean {
  return points.some((p) => p.executions > 0 || p.dedupHits > 0);
}

/** Axis label for a bucket start: a time of day for minutes and hours, a date for days. */
export function formatBucket(at: number, bucket: TimeseriesResponse["bucket"]): string {
  const d = new Date(at);
  if (bucket === "day") return d.toISOString().slice(5, 10);
  return d.toISOString().slice(11, 16);
}
