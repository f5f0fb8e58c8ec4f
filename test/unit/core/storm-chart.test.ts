import { describe, expect, it } from "vitest";
import { STORM_CHART_MAX_POINTS, planStormChart, stormRateSeries } from "../../../lib/core/storm-chart";

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("planStormChart", () => {
  it("an open storm of one-minute windows: ten baseline windows before it, minute buckets up to the last whole window, from the rollups", () => {
    const plan = planStormChart({ windowSeconds: 60, startedAt: T0, endedAt: null }, T0 + 5 * MIN + 30_000);
    expect(plan).toEqual({ from: T0 - 10 * MIN, to: T0 + 5 * MIN, bucketMs: MIN, windowMs: MIN, source: "rollups" });
  });

  it("a closed storm shows the three quiet windows that closed it and three more, never the future", () => {
    const closed = planStormChart({ windowSeconds: 60, startedAt: T0, endedAt: T0 + 4 * MIN }, T0 + 60 * MIN);
    expect(closed.to).toBe(T0 + 7 * MIN);
    const justClosed = planStormChart({ windowSeconds: 60, startedAt: T0, endedAt: T0 + 4 * MIN }, T0 + 5 * MIN + 1);
    expect(justClosed.to).toBe(T0 + 5 * MIN);
  });

  it("a storm that just opened still has its first window", () => {
    const plan = planStormChart({ windowSeconds: 60, startedAt: T0, endedAt: null }, T0 + 10_000);
    expect(plan.to).toBe(T0 + MIN);
  });

  it("one-second windows read the events while the span is short", () => {
    const plan = planStormChart({ windowSeconds: 1, startedAt: T0, endedAt: T0 + 5_000 }, T0 + 20_000);
    expect(plan).toEqual({ from: T0 - 10_000, to: T0 + 8_000, bucketMs: 1_000, windowMs: 1_000, source: "events" });
  });

  it("a long incident is drawn in coarser buckets, whole minutes (rollups) once the span is long", () => {
    const long = planStormChart({ windowSeconds: 1, startedAt: T0, endedAt: null }, T0 + 6 * 3_600_000);
    expect(long.source).toBe("rollups");
    expect(long.bucketMs % MIN).toBe(0);
    expect((long.to - long.from) / long.bucketMs).toBeLessThanOrEqual(STORM_CHART_MAX_POINTS + 1);
    const hours = planStormChart({ windowSeconds: 300, startedAt: T0, endedAt: null }, T0 + 30 * 86_400_000);
    expect((hours.to - hours.from) / hours.bucketMs).toBeLessThanOrEqual(STORM_CHART_MAX_POINTS + 1);
    expect(hours.bucketMs % (300_000)).toBe(0);
  });
});

describe("stormRateSeries", () => {
  it("fills every bucket and scales hits to one storm window", () => {
    const plan = { from: T0, to: T0 + 3 * 2 * MIN, bucketMs: 2 * MIN, windowMs: MIN, source: "rollups" as const };
    const series = stormRateSeries(plan, new Map([[(T0 + 2 * MIN) / (2 * MIN), 40]]));
    expect(series).toEqual([
      { at: T0, hits: 0, hitsPerWindow: 0 },
      { at: T0 + 2 * MIN, hits: 40, hitsPerWindow: 20 },
      { at: T0 + 4 * MIN, hits: 0, hitsPerWindow: 0 },
    ]);
  });
});
