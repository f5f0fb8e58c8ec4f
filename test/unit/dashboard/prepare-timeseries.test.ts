import { describe, expect, it } from "vitest";
import type { TimeseriesResponse } from "@/lib/contract/stats";
import { sumCounts } from "@/lib/dashboard/decision-groups";
import { formatBucket, hasTraffic, prepareDecisionSeries, prepareRateSeries, spansDays } from "@/lib/dashboard/prepare-timeseries";

const base: TimeseriesResponse = {
  projectId: "proj_x",
  from: "2026-01-01T00:00:00.000Z",
  to: "2026-01-01T00:05:00.000Z",
  bucket: "minute",
  bucketSeconds: 60,
  tool: null,
  series: [],
};

const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;

describe("prepareDecisionSeries", () => {
  it("fills every bucket of the range with zeros", () => {
    const points = prepareDecisionSeries(base);
    expect(points).toHaveLength(5);
    expect(points.every((p) => p.executions === 0 && p.dedupHits === 0)).toBe(true);
    expect(hasTraffic(points)).toBe(false);
  });

  it("counts every begin decision in one group, so each bar adds up to the calls of its bucket; completes are not decisions", () => {
    const points = prepareDecisionSeries({
      ...base,
      series: [
        { tool: "a", type: "begin", decision: "execute", total: 3, points: [{ at: at(1), count: 3 }] },
        { tool: "b", type: "begin", decision: "verify", total: 1, points: [{ at: at(1), count: 1 }] },
        { tool: "a", type: "begin", decision: "replay", total: 2, points: [{ at: at(2), count: 2 }] },
        { tool: "a", type: "begin", decision: "in_progress", total: 1, points: [{ at: at(2), count: 1 }] },
        { tool: "b", type: "begin", decision: "refused", total: 1, points: [{ at: at(3), count: 1 }] },
        { tool: "a", type: "begin", decision: "conflict", total: 9, points: [{ at: at(3), count: 9 }] },
        { tool: "a", type: "begin", decision: "blocked", total: 2, points: [{ at: at(4), count: 2 }] },
        { tool: "b", type: "begin", decision: "approval_required", total: 1, points: [{ at: at(4), count: 1 }] },
        { tool: "b", type: "begin", decision: "preview_required", total: 1, points: [{ at: at(4), count: 1 }] },
        { tool: "a", type: "complete", decision: "succeeded", total: 4, points: [{ at: at(1), count: 4 }] },
      ],
    });
    expect(points.map((p) => [p.executions, p.dedupHits, p.conflicts, p.blocked, p.approvalRequired, p.previewRequired, p.other])).toEqual([
      [0, 0, 0, 0, 0, 0, 0],
      [4, 0, 0, 0, 0, 0, 0],
      [0, 3, 0, 0, 0, 0, 0],
      [0, 1, 9, 0, 0, 0, 0],
      [0, 0, 0, 2, 1, 1, 0],
    ]);
    expect(points.map((p) => p.begins)).toEqual([0, 4, 3, 10, 4]);
    for (const p of points) expect(sumCounts(p)).toBe(p.begins);
    expect(points[1]).toMatchObject({ at: Date.parse(at(1)), end: Date.parse(at(2)) });
    expect(hasTraffic(points)).toBe(true);
    // One tool only: the per-tool chart.
    const b = prepareDecisionSeries({ ...base, series: [{ tool: "a", type: "begin", decision: "execute", total: 3, points: [{ at: at(1), count: 3 }] }, { tool: "b", type: "begin", decision: "replay", total: 1, points: [{ at: at(1), count: 1 }] }] }, { tool: "b" });
    expect(b[1]).toMatchObject({ begins: 1, dedupHits: 1, executions: 0 });
  });

  it("the dedup rate is a percentage of the bucket's calls, with gaps (not zeros) where nothing was called", () => {
    const points = prepareDecisionSeries({
      ...base,
      series: [
        { tool: "a", type: "begin", decision: "execute", total: 3, points: [{ at: at(1), count: 3 }, { at: at(2), count: 1 }] },
        { tool: "a", type: "begin", decision: "replay", total: 4, points: [{ at: at(1), count: 1 }, { at: at(2), count: 3 }] },
      ],
    });
    expect(prepareRateSeries(points).map((p) => p.rate)).toEqual([null, 25, 75, null, null]);
  });

  it("keeps only the latest maxPoints buckets and drops points outside the range", () => {
    const points = prepareDecisionSeries(
      { ...base, series: [{ tool: "a", type: "begin", decision: "execute", total: 2, points: [{ at: at(0), count: 1 }, { at: at(9), count: 1 }] }] },
      { maxPoints: 2 },
    );
    expect(points.map((p) => new Date(p.at).toISOString())).toEqual([at(3), at(4)]);
    expect(hasTraffic(points)).toBe(false);
  });

  it("formats bucket labels by bucket length", () => {
    expect(formatBucket(Date.parse("2026-03-04T05:06:00Z"), "minute")).toBe("05:06");
    expect(formatBucket(Date.parse("2026-03-04T00:00:00Z"), "day")).toBe("03-04");
    expect(formatBucket(Date.parse("2026-03-04T05:06:00Z"), "hour", true)).toBe("03-04 05:06");
  });

  it("a range that crosses midnight spans days: its ticks need the date", () => {
    expect(spansDays([{ at: Date.parse("2026-03-04T22:00:00Z") }, { at: Date.parse("2026-03-05T01:00:00Z") }])).toBe(true);
    expect(spansDays([{ at: Date.parse("2026-03-04T01:00:00Z") }, { at: Date.parse("2026-03-04T23:00:00Z") }])).toBe(false);
  });
});
