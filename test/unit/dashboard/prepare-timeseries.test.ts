import { describe, expect, it } from "vitest";
import type { TimeseriesResponse } from "@/lib/contract/stats";
import { formatBucket, hasTraffic, prepareDecisionSeries } from "@/lib/dashboard/prepare-timeseries";

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

  it("sums executions and dedup hits over tools and ignores completes and other decisions", () => {
    const points = prepareDecisionSeries({
      ...base,
      series: [
        { tool: "a", type: "begin", decision: "execute", total: 3, points: [{ at: at(1), count: 3 }] },
        { tool: "b", type: "begin", decision: "verify", total: 1, points: [{ at: at(1), count: 1 }] },
        { tool: "a", type: "begin", decision: "replay", total: 2, points: [{ at: at(2), count: 2 }] },
        { tool: "a", type: "begin", decision: "in_progress", total: 1, points: [{ at: at(2), count: 1 }] },
        { tool: "b", type: "begin", decision: "refused", total: 1, points: [{ at: at(3), count: 1 }] },
        { tool: "a", type: "begin", decision: "conflict", total: 9, points: [{ at: at(3), count: 9 }] },
        { tool: "a", type: "complete", decision: "succeeded", total: 4, points: [{ at: at(1), count: 4 }] },
      ],
    });
    expect(points.map((p) => [p.executions, p.dedupHits])).toEqual([
      [0, 0],
      [4, 0],
      [0, 3],
      [0, 1],
      [0, 0],
    ]);
    expect(hasTraffic(points)).toBe(true);
  });

  it("keeps only the latest maxPoints buckets and drops points outside the range", () => {
    const points = prepareDecisionSeries(
      { ...base, series: [{ tool: "a", type: "begin", decision: "execute", total: 2, points: [{ at: at(0), count: 1 }, { at: at(9), count: 1 }] }] },
      2,
    );
    expect(points.map((p) => new Date(p.at).toISOString())).toEqual([at(3), at(4)]);
    expect(hasTraffic(points)).toBe(false);
  });

  it("formats bucket labels by bucket length", () => {
    expect(formatBucket(Date.parse("2026-03-04T05:06:00Z"), "minute")).toBe("05:06");
    expect(formatBucket(Date.parse("2026-03-04T00:00:00Z"), "day")).toBe("03-04");
  });
});
