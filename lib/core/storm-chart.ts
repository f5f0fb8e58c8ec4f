import { BASELINE_WINDOWS, QUIET_WINDOWS_TO_CLOSE } from "./storm-detector";

/**
 * The span and resolution of a storm's "rate vs baseline" chart: the baseline windows before it,
 * the incident, and a few windows after it closed. Rates are expressed in hits per storm window, so
 * they compare directly with the storm's baseline and threshold whatever the bucket length.
 */

/** Points one chart may hold: long incidents are drawn in coarser buckets. */
export const STORM_CHART_MAX_POINTS = 240;
/** Longest span read from the event ledger (sub-minute buckets); beyond it, whole minutes from the rollups. */
export const STORM_CHART_EVENT_SPAN_MS = 15 * 60_000;
const MINUTE_MS = 60_000;

export interface StormChartInput {
  windowSeconds: number;
  startedAt: number;
  endedAt: number | null;
}

export interface StormChartPlan {
  from: number;
  /** Exclusive. */
  to: number;
  bucketMs: number;
  windowMs: number;
  /** Minute rollups when buckets are whole minutes (cheap, any span), else the events ledger (short spans only). */
  source: "rollups" | "events";
}

export function planStormChart(storm: StormChartInput, now: number): StormChartPlan {
  const windowMs = storm.windowSeconds * 1000;
  const rawFrom = storm.startedAt - BASELINE_WINDOWS * windowMs;
  // Open: up to the last whole window; closed: the quiet windows that closed it and as many again.
  const lastWhole = Math.floor(now / windowMs) * windowMs;
  const wanted = storm.endedAt === null ? lastWhole : storm.endedAt + QUIET_WINDOWS_TO_CLOSE * windowMs;
  const rawTo = Math.max(Math.min(wanted, lastWhole), storm.startedAt + windowMs);

  let bucketMs = windowMs * Math.max(1, Math.ceil((rawTo - rawFrom) / windowMs / STORM_CHART_MAX_POINTS));
  const wholeMinutes = bucketMs % MINUTE_MS === 0;
  if (!wholeMinutes && rawTo - rawFrom > STORM_CHART_EVENT_SPAN_MS) bucketMs = Math.ceil(bucketMs / MINUTE_MS) * MINUTE_MS;
  const from = Math.floor(rawFrom / bucketMs) * bucketMs;
  const to = Math.ceil(rawTo / bucketMs) * bucketMs;
  return { from, to, bucketMs, windowMs, source: bucketMs % MINUTE_MS === 0 ? "rollups" : "events" };
}

export interface StormRatePoint {
  /** Bucket start, epoch ms. */
  at: number;
  hits: number;
  /** hits scaled to one storm window: comparable with the baseline and threshold. */
  hitsPerWindow: number;
}

/** Every bucket of the plan, in order, empty ones as zero; `hits` maps bucket index (at / bucketMs) to dedup hits. */
export function stormRateSeries(plan: StormChartPlan, hits: ReadonlyMap<number, number>): StormRatePoint[] {
  const points: StormRatePoint[] = [];
  const scale = plan.windowMs / plan.bucketMs;
  for (let at = plan.from; at < plan.to; at += plan.bucketMs) {
    const count = hits.get(at / plan.bucketMs) ?? 0;
    points.push({ at, hits: count, hitsPerWindow: count * scale });
  }
  return points;
}
