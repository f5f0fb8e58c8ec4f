import { z } from "zod";
import { ToolNameSchema } from "../contract/tool-name";
import { BucketSchema } from "../contract/stats";
import { BUCKET_MS, type Bucket, MAX_BUCKETS, type TimeRange, alignRange } from "../core/buckets";
import { AppError } from "../server/app-error";

/**
 * Shared zod pieces for time ranges in query strings (`?from=…&to=…`, ISO 8601), and turning them
 * into whole buckets of epoch ms. Defaults and caps depend on the endpoint, so they are applied by
 * `resolveRange`, which answers 400 like a zod failure would.
 */
const instant = z.iso.datetime({ offset: true });

export const RangeQuery = z.object({
  from: instant.optional().describe("Start (ISO 8601); default: `to` minus the endpoint's default span"),
  to: instant.optional().describe("End, exclusive (ISO 8601); default: now"),
});

export const TimeseriesQuery = RangeQuery.extend({
  bucket: BucketSchema.default("hour"),
  tool: ToolNameSchema.optional().describe("Only this tool (default: every tool)"),
}).strict();

export const DedupQuery = RangeQuery.strict();

/** The operators' queue: the range its verify tally counts (default the last 24 h). */
export const QueueQuery = RangeQuery.strict();

export const TopRunsQuery = RangeQuery.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
}).strict();

export interface RangeRules {
  defaultSpanMs: number;
  maxSpanMs: number;
  /** Both ends are widened to multiples of it. */
  alignMs: number;
}

/** Range rules per endpoint: defaults a dashboard wants, caps that keep each answer bounded. */
export const RANGE_RULES = {
  timeseries: (bucket: Bucket): RangeRules => ({
    defaultSpanMs: { minute: 3_600_000, hour: 86_400_000, day: 30 * 86_400_000 }[bucket],
    maxSpanMs: MAX_BUCKETS * BUCKET_MS[bucket],
    alignMs: BUCKET_MS[bucket],
  }),
  /** Totals come from minute rollups: any span the rollups are kept for. */
  dedup: { defaultSpanMs: 86_400_000, maxSpanMs: 400 * 86_400_000, alignMs: BUCKET_MS.minute } satisfies RangeRules,
  /** Reads the ledger: a day at most, and only its latest begins (see TOP_RUNS_SCAN_LIMIT). */
  topRuns: { defaultSpanMs: 3_600_000, maxSpanMs: 86_400_000, alignMs: 1_000 } satisfies RangeRules,
  /** Shadow mode's "would have prevented" reads the ledger over (project_id, at): a month at most. */
  shadow: { defaultSpanMs: 86_400_000, maxSpanMs: 31 * 86_400_000, alignMs: 1_000 } satisfies RangeRules,
  /** The operators' queue's verify tally reads the ledger over (project_id, at): a month at most. */
  queue: { defaultSpanMs: 86_400_000, maxSpanMs: 31 * 86_400_000, alignMs: 1_000 } satisfies RangeRules,
};

export function resolveRange(query: { from?: string; to?: string }, rules: RangeRules, now: number = Date.now()): TimeRange {
  const rawTo = query.to ? Date.parse(query.to) : now;
  const rawFrom = query.from ? Date.parse(query.from) : rawTo - rules.defaultSpanMs;
  if (!(rawFrom < rawTo)) throw invalid("from", "`from` must be before `to`");
  const { from, to } = alignRange(rawFrom, rawTo, rules.alignMs);
  if (to - from > rules.maxSpanMs) {
    const hours = rules.maxSpanMs / 3_600_000;
    throw invalid("from", `the range may span at most ${hours > 48 ? `${Math.round(hours / 24)} days` : `${hours} h`} for this query`);
  }
  return { from, to };
}

function invalid(field: string, message: string): AppError {
  return new AppError("invalid_input", message, { issues: [{ path: [field], message, code: "invalid_range" }] });
}
