import { describe, expect, it } from "vitest";
import { explainStorm } from "@/lib/dashboard/explain-storm";

const storm = {
  tool: "sync_inventory",
  windowSeconds: 60,
  baseline: 4,
  threshold: 20,
  rule: "baseline" as const,
  startedAt: "2026-03-01T10:00:00.000Z",
  openingWindowAt: "2026-03-01T10:00:00.000Z",
  openingHits: 168,
};

describe("explainStorm", () => {
  it("says hits vs baseline vs threshold, and the rule", () => {
    expect(explainStorm(storm)).toEqual([
      "sync_inventory had 168 dedup hits in one 60-second window, 42× its baseline of 4 per window (the mean of the windows before it).",
      "The threshold was 20: the larger of the policy's storm.minHits and storm.factor × the baseline.",
    ]);
    expect(explainStorm({ ...storm, baseline: 0 })[0]).toContain("against a baseline of 0 per window");
  });

  it("names the absolute rule when the gate had no baseline, and a burst caught across a boundary", () => {
    const lines = explainStorm({ ...storm, rule: "absolute", baseline: 12.5, threshold: 100, openingWindowAt: "2026-03-01T10:00:30.000Z" });
    expect(lines[0]).toBe(
      "sync_inventory had 168 dedup hits in the 60 seconds from 10:00:30 UTC (a window straddling a boundary: the burst was cut in two, and neither window alone saw all of it), while the gate was too new to have a baseline (12.5 per window so far).",
    );
    expect(lines[1]).toContain("at least 100 hits");
  });
});
