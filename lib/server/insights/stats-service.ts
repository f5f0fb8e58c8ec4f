import type { DedupResponse, ShadowResponse, TimeseriesResponse, TopRunsResponse } from "../../contract/stats";
import { type Storm, type StormDetail, toWireStorm } from "../../contract/storms";
import { planStormChart, stormRateSeries } from "../../core/storm-chart";
import { describeKind, tallyKinds } from "../../core/rollup-tally";
import { BUCKET_MS, type Bucket, type TimeRange } from "../../core/buckets";
import type { InsightStore, RollupTotal, StormStatus } from "../../store/ports/insight-store";
import type { GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";

/** Begins top-runs reads at most: the one statistic that reads the ledger. */
export const TOP_RUNS_SCAN_LIMIT = 100_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The dashboard's figures. Charts and rates come from the minute rollups the events trigger
 * keeps; only top runs reads recent events, bounded by time and by TOP_RUNS_SCAN_LIMIT.
 */
export class StatsService {
  constructor(
    private readonly insights: InsightStore,
    private readonly gate: Pick<GateStore, "projectExists" | "settleLedger">,
  ) {}

  /** Every figure is read after this process's queued decision events are committed (they feed the rollups). */
  private async requireProject(projectId: string): Promise<void> {
    const [exists] = await Promise.all([this.gate.projectExists(projectId), this.gate.settleLedger()]);
    if (!exists) throw new AppError("not_found", `no project ${projectId}`);
  }

  async timeseries(projectId: string, range: TimeRange, bucket: Bucket, tool: string | null): Promise<TimeseriesResponse> {
    await this.requireProject(projectId);
    const points = await this.insights.rollupSeries(projectId, range.from, range.to, BUCKET_MS[bucket], tool);
    const series = new Map<string, TimeseriesResponse["series"][number]>();
    for (const point of points) {
      const id = `${point.tool}\u0000${point.kind}`;
      let entry = series.get(id);
      if (!entry) {
        entry = { tool: point.tool, ...describeKind(point.kind), total: 0, points: [] };
        series.set(id, entry);
      }
      entry.total += point.total;
      entry.points.push({ at: iso(point.at), count: point.total });
    }
    return {
      projectId,
      from: iso(range.from),
      to: iso(range.to),
      bucket,
      bucketSeconds: BUCKET_MS[bucket] / 1000,
      tool,
      series: [...series.values()].sort((a, b) => a.tool.localeCompare(b.tool) || a.type.localeCompare(b.type) || a.decision.localeCompare(b.decision)),
    };
  }

  async dedup(projectId: string, range: TimeRange): Promise<DedupResponse> {
    await this.requireProject(projectId);
    const totals = await this.insights.rollupTotals(projectId, range.from, range.to);
    const byTool = new Map<string, RollupTotal[]>();
    for (const row of totals) byTool.set(row.tool, [...(byTool.get(row.tool) ?? []), row]);
    const tools = [...byTool].map(([tool, rows]) => ({ tool, ...tallyKinds(rows) }));
    tools.sort((a, b) => b.dedupRate - a.dedupRate || b.dedupHits - a.dedupHits || a.tool.localeCompare(b.tool));
    return { projectId, from: iso(range.from), to: iso(range.to), total: tallyKinds(totals), tools };
  }

  /** Shadow mode: "would have prevented N duplicate executions" per tool over the range. */
  async shadow(projectId: string, range: TimeRange): Promise<ShadowResponse> {
    await this.requireProject(projectId);
    const tools = await this.insights.shadowPrevented(projectId, range.from, range.to);
    return { projectId, from: iso(range.from), to: iso(range.to), tools };
  }

  async topRuns(projectId: string, range: TimeRange, limit: number): Promise<TopRunsResponse> {
    await this.requireProject(projectId);
    const { runs, scanned } = await this.insights.topRuns(projectId, range.from, range.to, TOP_RUNS_SCAN_LIMIT, limit);
    return {
      projectId,
      from: iso(range.from),
      to: iso(range.to),
      scanned,
      sampled: scanned >= TOP_RUNS_SCAN_LIMIT,
      runs: runs.map((run) => ({
        runId: run.runId,
        begins: run.begins,
        dedupHits: run.dedupHits,
        dedupRate: run.begins === 0 ? 0 : run.dedupHits / run.begins,
        tools: run.tools,
        firstAt: iso(run.firstAt),
        lastAt: iso(run.lastAt),
      })),
    };
  }

  async storms(projectId: string, status: StormStatus | null, limit: number): Promise<{ projectId: string; storms: Storm[] }> {
    await this.requireProject(projectId);
    return { projectId, storms: (await this.insights.listStorms(projectId, status, limit)).map(toWireStorm) };
  }

  /** One incident and its tool's dedup hits per bucket around it (see planStormChart). */
  async storm(projectId: string, stormId: string, now: number = Date.now()): Promise<StormDetail> {
    const [row] = await Promise.all([this.insights.findStorm(projectId, stormId), this.gate.settleLedger()]);
    if (!row) throw new AppError("not_found", `no storm ${stormId} in this project`);
    const plan = planStormChart(row, now);
    const read = plan.source === "rollups" ? this.insights.dedupHitsFromRollups.bind(this.insights) : this.insights.dedupHitsFromEvents.bind(this.insights);
    const hits = new Map<number, number>();
    for (const point of await read(projectId, plan.bucketMs, plan.from, plan.to)) if (point.tool === row.tool) hits.set(point.window, point.hits);
    return {
      storm: toWireStorm(row),
      rate: {
        from: iso(plan.from),
        to: iso(plan.to),
        bucketSeconds: plan.bucketMs / 1000,
        points: stormRateSeries(plan, hits).map((point) => ({ at: iso(point.at), hits: point.hits, hitsPerWindow: point.hitsPerWindow })),
      },
    };
  }
}
