import type { StormDetail } from "../contract/storms";
import { niceTicks } from "./nice-ticks";

export interface StormRatePoint {
  /** Bucket start, epoch ms. */
  at: number;
  /** Bucket end (exclusive), epoch ms: a bar's click opens the calls of this window. */
  end: number;
  /** The bucket's middle: where its bar is drawn, so the bar spans its window on the time axis. */
  mid: number;
  /** Dedup hits per storm window. */
  rate: number;
}

export interface StormRateChartData {
  points: StormRatePoint[];
  baseline: number;
  threshold: number;
  /** The incident's span on the time axis (to: its end, or the last bucket's end while open). */
  stormFrom: number;
  stormTo: number;
  /** Nice-number ticks from 0; the last one is the axis's top, above both the rate and the threshold. */
  ticks: number[];
  yMax: number;
  bucketSeconds: number;
  /**
   * Where the threshold and baseline labels go (recharts' insideBottom* draws a label just above
   * its line, clear of the time axis under a baseline near zero): when the two lines are close
   * (under a tenth of the axis apart), the labels sit at opposite ends so they never overlap.
   */
  labels: { threshold: "insideBottomRight" | "insideBottomLeft"; baseline: "insideBottomLeft" };
}

/**
 * The storm detail's chart: its rate per bucket against the frozen baseline and the threshold it
 * crossed, as bars (one per bucket: a bar is exactly what was counted, no curve drawn between them).
 */
export function prepareStormRate(detail: StormDetail): StormRateChartData {
  const step = detail.rate.bucketSeconds * 1000;
  const points = detail.rate.points.map((p) => {
    const at = Date.parse(p.at);
    return { at, end: at + step, mid: at + step / 2, rate: Math.round(p.hitsPerWindow * 100) / 100 };
  });
  const lastEnd = points.length > 0 ? points[points.length - 1]!.end : Date.parse(detail.rate.to);
  const { storm } = detail;
  const top = Math.max(storm.threshold, storm.baseline, ...points.map((p) => p.rate));
  // Room above the highest bar or line, so the threshold is never on the edge.
  const ticks = niceTicks(top * 1.1, 5, top >= 4);
  const yMax = ticks[ticks.length - 1]!;
  const close = Math.abs(storm.threshold - storm.baseline) < yMax / 10;
  return {
    points,
    baseline: storm.baseline,
    threshold: storm.threshold,
    stormFrom: Date.parse(storm.startedAt),
    stormTo: storm.endedAt ? Math.min(Date.parse(storm.endedAt), lastEnd) : lastEnd,
    ticks,
    yMax,
    bucketSeconds: detail.rate.bucketSeconds,
    labels: { threshold: close ? "insideBottomRight" : "insideBottomLeft", baseline: "insideBottomLeft" },
  };
}

/** Axis label for a bucket start: seconds when buckets are shorter than a minute. */
export function formatRateTick(at: number, bucketSeconds: number): string {
  return new Date(at).toISOString().slice(11, bucketSeconds < 60 ? 19 : 16);
}
