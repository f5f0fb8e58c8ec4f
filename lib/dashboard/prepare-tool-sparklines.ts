import type { TimeseriesResponse } from "../contract/stats";
import { DEDUP_HIT_DECISIONS } from "../core/rollup-tally";

export interface SparkPoint {
  /** Bucket start, epoch ms. */
  at: number;
  calls: number;
  dedupHits: number;
}

export interface ToolSparkline {
  tool: string;
  calls: number;
  dedupHits: number;
  /** dedupHits / calls; 0 without calls. */
  dedupRate: number;
  points: SparkPoint[];
}

const DEDUP = new Set(DEDUP_HIT_DECISIONS);

/**
 * Per tool, calls (begin decisions) and dedup hits per bucket, every bucket of the range present
 * (zero when quiet) so that every sparkline shares one time axis. From the one all-tools
 * timeseries the overview already reads. Highest dedup rate first, then most calls.
 */
export function prepareToolSparklines(data: TimeseriesResponse): ToolSparkline[] {
  const step = data.bucketSeconds * 1000;
  const from = Date.parse(data.from);
  const to = Date.parse(data.to);
  const slots = Math.max(0, Math.ceil((to - from) / step));
  const byTool = new Map<string, ToolSparkline>();
  for (const series of data.series) {
    if (series.type !== "begin") continue;
    let entry = byTool.get(series.tool);
    if (!entry) {
      entry = { tool: series.tool, calls: 0, dedupHits: 0, dedupRate: 0, points: Array.from({ length: slots }, (_, i) => ({ at: from + i * step, calls: 0, dedupHits: 0 })) };
      byTool.set(series.tool, entry);
    }
    const dedup = DEDUP.has(series.decision);
    for (const point of series.points) {
      const slot = entry.points[Math.floor((Date.parse(point.at) - from) / step)];
      if (!slot) continue;
      slot.calls += point.count;
      entry.calls += point.count;
      if (dedup) {
        slot.dedupHits += point.count;
        entry.dedupHits += point.count;
      }
    }
  }
  const tools = [...byTool.values()].filter((t) => t.calls > 0);
  for (const t of tools) t.dedupRate = t.dedupHits / t.calls;
  return tools.sort((a, b) => b.dedupRate - a.dedupRate || b.calls - a.calls || a.tool.localeCompare(b.tool));
}
