import { describe, expect, it } from "vitest";
import type { StormDetail } from "@/lib/contract/storms";
import { formatRateTick, prepareStormRate } from "@/lib/dashboard/prepare-storm-rate";

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const storm: StormDetail["storm"] = {
  id: "storm_1",
  projectId: "proj_x",
  tool: "charge",
  status: "closed",
  windowSeconds: 1,
  baseline: 2,
  rule: "baseline",
  openingWindowAt: t(2),
  openingHits: 50,
  threshold: 20,
  startedAt: t(2),
  lastWindowAt: t(4),
  endedAt: t(5),
  peakHits: 40,
  peakPerMinute: 2400,
  lastHits: 0,
  totalHits: 60,
  quietWindows: 3,
  runsInvolved: 4,
  topKeys: [],
  topRuns: [],
  policyVersion: 1,
};
const points = [0, 1, 2, 3, 4, 5].map((s) => ({ at: t(s), hits: s === 2 ? 40 : 1, hitsPerWindow: s === 2 ? 40 : 1 }));

describe("prepareStormRate", () => {
  it("plots hits per window on epoch ms, spans the storm, and leaves room above the peak", () => {
    const chart = prepareStormRate({ storm, rate: { from: t(0), to: t(6), bucketSeconds: 1, points } });
    // Drawn at the window's middle, so the bar spans [at, end) on the time axis.
    expect(chart.points[2]).toEqual({ at: Date.parse(t(2)), end: Date.parse(t(3)), mid: (Date.parse(t(2)) + Date.parse(t(3))) / 2, rate: 40 });
    expect(chart.stormFrom).toBe(Date.parse(t(2)));
    expect(chart.stormTo).toBe(Date.parse(t(5)));
    // Nice ticks above the 40-hit peak: 0, 10, 20, … 50.
    expect(chart.ticks).toEqual([0, 10, 20, 30, 40, 50]);
    expect(chart.yMax).toBe(50);
    expect([chart.baseline, chart.threshold]).toEqual([2, 20]);
  });

  it("an open storm spans to the end of the last bucket; the threshold stays on the chart when rates are low", () => {
    const quiet = points.map((p) => ({ ...p, hits: 1, hitsPerWindow: 1 }));
    const chart = prepareStormRate({ storm: { ...storm, status: "open", endedAt: null }, rate: { from: t(0), to: t(6), bucketSeconds: 1, points: quiet } });
    expect(chart.stormTo).toBe(Date.parse(t(6)));
    expect(chart.ticks).toEqual([0, 5, 10, 15, 20, 25]);
    expect(chart.yMax).toBeGreaterThan(20);
  });

  it("puts the threshold and baseline labels at opposite ends when the lines are close", () => {
    const near = prepareStormRate({ storm: { ...storm, baseline: 18, threshold: 20 }, rate: { from: t(0), to: t(6), bucketSeconds: 1, points } });
    expect(near.labels.threshold).not.toBe(near.labels.baseline);
    expect(near.labels.threshold.endsWith("Right")).toBe(true);
    const far = prepareStormRate({ storm, rate: { from: t(0), to: t(6), bucketSeconds: 1, points } });
    // 2 vs 20 on a 0–50 axis: far enough apart that each label sits on its own line.
    expect(far.labels).toEqual({ threshold: "insideBottomLeft", baseline: "insideBottomLeft" });
  });

  it("ticks show seconds for sub-minute buckets only", () => {
    expect(formatRateTick(Date.parse(t(7)), 1)).toBe("00:00:07");
    expect(formatRateTick(Date.parse(t(7)), 60)).toBe("00:00");
  });
});
