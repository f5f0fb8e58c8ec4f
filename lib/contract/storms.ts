import { z } from "zod";
import type { StormRow } from "../store/ports/insight-store";

/**
 * Retry-storm incidents as operators (any project member) and webhook receivers see them. The
 * API answers with these schemas, the OpenAPI document is generated from them, and the webhook
 * sends `toWireStorm` of the same rows.
 */
const isoTime = z.iso.datetime();
/** Heaviest runs shown per storm; the stored sample is larger (it counts the runs involved). */
export const STORM_TOP_RUNS = 10;

export const StormSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    tool: z.string(),
    status: z.enum(["open", "closed"]),
    windowSeconds: z.number().int().describe("The window dedup hits are counted in (the tool's storm.windowSeconds when it opened)"),
    baseline: z.number().describe("Mean dedup hits per window before the storm, frozen when it opened"),
    threshold: z.number().describe("Hits per window that opened it: max(minHits, factor × baseline), or absoluteMinHits under the absolute rule"),
    rule: z
      .enum(["baseline", "absolute"])
      .describe("baseline: hits ≥ max(minHits, factor × baseline); absolute: the gate had no baseline yet (its first windows), so hits ≥ absoluteMinHits at ≥ absoluteDedupRate of begins"),
    startedAt: isoTime.describe("Start of the first storm window"),
    openingWindowAt: isoTime.describe("Start of the window that opened it: the first storm window, or the window straddling the boundary after it (a burst cut in two by a boundary)"),
    openingHits: z.number().int().describe("Dedup hits in the window that opened it"),
    lastWindowAt: isoTime.describe("Start of the latest window judged"),
    endedAt: isoTime.nullable().describe("End of the window that closed it; null while open"),
    peakHits: z.number().int().describe("Most dedup hits in one window"),
    peakPerMinute: z.number().describe("The peak as a rate per minute"),
    lastHits: z.number().int(),
    totalHits: z.number().int().describe("Dedup hits in every window of the incident"),
    quietWindows: z.number().int().describe("Windows in a row back under the threshold (it closes at 3)"),
    runsInvolved: z.number().int().describe("Distinct runs with dedup hits in the storm (exact up to 500, a lower bound beyond)"),
    topKeys: z.array(z.object({ key: z.string(), hits: z.number().int() })).describe("Heaviest keys, most hits first"),
    topRuns: z.array(z.object({ runId: z.string(), hits: z.number().int() })).describe("Heaviest runs, most hits first"),
    policyVersion: z.number().int().describe("The policy revision in force when it opened"),
  })
  .meta({ id: "Storm", description: "A retry storm: a tool's dedup hits per window far above its trailing baseline" });

export const StormListResponseSchema = z
  .object({ projectId: z.string(), storms: z.array(StormSchema).describe("Latest first") })
  .meta({ id: "StormList" });

export const StormListQuerySchema = z
  .object({
    status: z.enum(["open", "closed"]).optional().describe("Only open or only closed incidents (default: both)"),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

export const StormRateSchema = z
  .object({
    from: isoTime,
    to: isoTime.describe("Exclusive"),
    bucketSeconds: z.number().int().describe("Each point covers this long: the storm's window, or more for a long incident"),
    points: z
      .array(
        z.object({
          at: isoTime.describe("Bucket start"),
          hits: z.number().int().min(0).describe("Dedup hits of the tool in the bucket"),
          hitsPerWindow: z.number().min(0).describe("hits scaled to one storm window: compare with baseline and threshold"),
        }),
      )
      .describe("Every bucket from the baseline windows before the storm to its end (or now), empty ones as zero"),
  })
  .meta({ id: "StormRate" });

export const StormDetailResponseSchema = z
  .object({ storm: StormSchema, rate: StormRateSchema })
  .meta({ id: "StormDetail", description: "One incident with its dedup-hit rate against the baseline it was judged by" });

export type Storm = z.infer<typeof StormSchema>;
export type StormDetail = z.infer<typeof StormDetailResponseSchema>;

const iso = (ms: number) => new Date(ms).toISOString();

export function toWireStorm(row: StormRow): Storm {
  return {
    id: row.id,
    projectId: row.projectId,
    tool: row.tool,
    status: row.status,
    windowSeconds: row.windowSeconds,
    baseline: row.baseline,
    threshold: row.threshold,
    rule: row.rule,
    openingWindowAt: iso(row.openingWindowAt),
    openingHits: row.openingHits,
    startedAt: iso(row.startedAt),
    lastWindowAt: iso(row.lastWindowAt),
    endedAt: row.endedAt === null ? null : iso(row.endedAt),
    peakHits: row.peakHits,
    peakPerMinute: (row.peakHits * 60) / row.windowSeconds,
    lastHits: row.lastHits,
    totalHits: row.totalHits,
    quietWindows: row.quietWindows,
    runsInvolved: row.runsInvolved,
    topKeys: row.topKeys.map(({ name, hits }) => ({ key: name, hits })),
    topRuns: row.topRuns.slice(0, STORM_TOP_RUNS).map(({ name, hits }) => ({ runId: name, hits })),
    policyVersion: row.policyVersion,
  };
}
