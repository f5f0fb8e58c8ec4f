import { z } from "zod";
import type { DecisionFigures } from "../core/rollup-tally";

/**
 * The dashboard's statistics API (any project member under /api/v1/operator, the admin token under
 * /api/v1/admin: lib/http/insight-routes.ts). Everything but top runs is read from the
 * per-minute rollups, so answers stay fast however long the ledger grows. Ranges are widened to
 * whole buckets (whole minutes for totals) and echoed back as `from` / `to`.
 */
const isoTime = z.iso.datetime();
const count = z.number().int().min(0);

export const BucketSchema = z.enum(["minute", "hour", "day"]).describe("Bucket length; buckets are aligned to UTC");

export const SeriesSchema = z
  .object({
    tool: z.string(),
    type: z.enum(["begin", "complete", "lease_lost"]).describe("begin: a decision; complete: an outcome; lease_lost: a late complete or heartbeat"),
    decision: z.string().describe("The begin decision (execute, replay, …), the complete's outcome (succeeded, failed, released), or lease_lost"),
    total: count,
    points: z.array(z.object({ at: isoTime.describe("Bucket start"), count })).describe("Buckets without events are left out"),
  })
  .meta({ id: "StatsSeries" });

export const TimeseriesResponseSchema = z
  .object({
    projectId: z.string(),
    from: isoTime,
    to: isoTime,
    bucket: BucketSchema,
    bucketSeconds: z.number().int(),
    tool: z.string().nullable().describe("The tool asked for; null = every tool"),
    series: z.array(SeriesSchema),
  })
  .meta({ id: "StatsTimeseries" });

export const DecisionFiguresSchema = z
  .object({
    begins: count,
    dedupHits: count.describe("replay + in_progress + refused: the tool did not run again"),
    dedupRate: z.number().min(0).max(1).describe("dedupHits / begins (0 without begins)"),
    executions: count.describe("execute + verify"),
    replays: count,
    inProgress: count,
    refused: count,
    conflicts: count,
    blocked: count,
    approvalRequired: count,
    previewRequired: count.describe("preview_required: a dry run (and maybe an operator's approval) comes first"),
    completes: z.object({ succeeded: count, failed: count, released: count }).describe("Completes by outcome (released: a retryable failure)"),
    failures: count.describe("failed + released completes"),
    leaseLost: count,
    meanBeginLatencyMs: z.number().nullable().describe("Mean time the gate took to decide a begin"),
  })
  .meta({ id: "DecisionFigures" });

export const ToolFiguresSchema = DecisionFiguresSchema.extend({ tool: z.string() }).meta({ id: "ToolFigures" });

export const DedupResponseSchema = z
  .object({
    projectId: z.string(),
    from: isoTime,
    to: isoTime,
    total: DecisionFiguresSchema.describe("Every tool together"),
    tools: z.array(ToolFiguresSchema).describe("By dedup rate, highest first"),
  })
  .meta({ id: "StatsDedup" });

export const RunPressureSchema = z
  .object({
    runId: z.string(),
    begins: count,
    dedupHits: count,
    dedupRate: z.number().min(0).max(1),
    tools: count.describe("Distinct tools the run called"),
    firstAt: isoTime,
    lastAt: isoTime,
  })
  .meta({ id: "RunPressure" });

export const TopRunsResponseSchema = z
  .object({
    projectId: z.string(),
    from: isoTime,
    to: isoTime,
    scanned: count.describe("Begins read: the latest ones in the range, up to the scan limit"),
    sampled: z.boolean().describe("True when the range held more begins than were read: figures cover the latest ones"),
    runs: z.array(RunPressureSchema).describe("Runs with dedup hits, most first"),
  })
  .meta({ id: "StatsTopRuns" });

export const ShadowResponseSchema = z
  .object({
    projectId: z.string(),
    from: isoTime,
    to: isoTime,
    tools: z
      .array(
        z.object({
          tool: z.string(),
          wouldPrevent: count.describe("Executions in shadow mode the gate would have prevented as duplicates (would_replay, would_wait, would_refuse, would_conflict)"),
        }),
      )
      .describe("Tools with at least one, most first; the calls behind a number: the calls list with tool and shadow=prevented"),
  })
  .meta({ id: "StatsShadow" });

export type TimeseriesResponse = z.infer<typeof TimeseriesResponseSchema>;
export type ShadowResponse = z.infer<typeof ShadowResponseSchema>;
export type DedupResponse = z.infer<typeof DedupResponseSchema>;
export type TopRunsResponse = z.infer<typeof TopRunsResponseSchema>;

type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const figuresAgree: Agree<z.infer<typeof DecisionFiguresSchema>, DecisionFigures> = true;
void figuresAgree;

export const ToolPageQuerySchema = z
  .object({
    from: isoTime.describe("Start of the range (ISO 8601)"),
    to: isoTime.describe("End of the range (ISO 8601)"),
    bucket: z.enum(["minute", "hour", "day"]).default("hour").describe("The cost series' bucket"),
  })
  .strict()
  .meta({ id: "ToolPageQuery" });

export const ToolPageFiguresSchema = z
  .object({
    tool: z.string(),
    from: isoTime,
    to: isoTime,
    calls: count.describe("Every begin decision"),
    decisions: z.record(z.string(), count).describe("Begins by decision name"),
    dedupHits: count.describe("replay + in_progress + refused, as on the overview"),
    dedupRate: z.number().min(0).max(1),
    latency: z
      .object({ count: count, p50Ms: z.number().nullable(), p95Ms: z.number().nullable() })
      .describe("Executions completed in the range: begin (execute, verify) to the complete of the same attempt; nearest-rank percentiles"),
    completes: count,
    failures: count.describe("failed + released completes"),
    failureRate: z.number().min(0).max(1).describe("failures / completes (0 without completes)"),
    truncated: z.boolean().describe("The range held more ledger lines than one answer reads: figures cover the newest ones"),
    costs: z
      .array(
        z.object({
          currency: z.string(),
          amount: z.number().min(0).describe("Sum of the costs completes reported in the range"),
          completes: count.describe("Completes that reported a cost in this currency"),
          series: z.array(z.object({ at: isoTime.describe("Bucket start"), amount: z.number().min(0) })).describe("Buckets with a cost, oldest first"),
        }),
      )
      .describe("Costs the tool's completes reported (`cost` on complete), per currency; empty when none did"),
  })
  .meta({ id: "ToolPageFigures", description: "One tool's figures over a range (the per-tool page)" });

