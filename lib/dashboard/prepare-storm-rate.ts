import type { StormDetail } from "../contract/storms";

export interface StormRatePoint {
  /** Bucket start, epoch ms. */
  at: number;
  /** Dedup hits per storm window. */
  rate: number;
}

export interface StormRateChartData {
  points: StormRatePoint[];
  baseline: number;
  threshold: number;
  /** The incident's span on the time axis (to: its end, or the last bucket while open). */
  stormFrom: number;
  stormTo: number;
  /** Room above the highest of rate and threshold, so the threshold line is never on the edge. */
  yMax: number;
  bucketSeconds: number;
}

/** The storm detail's chart: its rate per bucket against the frozen baseline and the threshold it crossed. */
export function prepareStormRate(detail: StormDetail): StormRateChartData {
  const points = detail.rate.points.map((p) => ({ at: Date.parse(p.at), rate: Math.round(p.hitsPerWindow * 100) / 100 }));
  const last = points.length > 0 ? points[points.length - 1]!.at : Date.parse(detail.rate.to);
  const { storm } = detail;
  const top = Math.max(storm.threshold, ...points.map((p) => p.rate));
  return {
    points,
    baseline: storm.baseline,
    threshold: storm.threshold,
    stormFrom: Date.parse(storm.startedAt),
    stormTo: storm.endedAt ? Math.min(Date.parse(storm.endedAt), last) : last,
    yMax: Math.ceil(top * 1.15) || 1,
    bucketSeconds: detail.rate.bucketSeconds,
  };
}

/** Axis label for a bucket start: seconds when buckets are shorter than a minute. */
export function formatRateTick(at: number, bucketSeconds: number): string {
  return new Date(at).toISOString().slice(11, bucketSeconds < 60 ? 19 : 16);
}
