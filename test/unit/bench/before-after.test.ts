import { describe, expect, it } from "vitest";
import type { CellResult } from "../../../bench/run";
import { spread, verdict } from "../../../bench/table";

/** A cell whose repetitions ran at these ops/s (the median is what summarizeReps would take). */
function cell(rates: number[]): CellResult {
  const sorted = [...rates].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return {
    reps: rates.map((opsPerSecond) => ({ ops: 100, seconds: 1, opsPerSecond, p50Ms: 1, p99Ms: 2, capped: false, errors: 0 })),
    median: { ops: 100, opsPerSecond: median, p50Ms: 1, p99Ms: 2 },
  } as unknown as CellResult;
}

describe("bench --baseline: a change is read against the cells' run-to-run spread", () => {
  it("spread is the repetitions' range over their median", () => {
    expect(spread(cell([90, 100, 110]))).toBeCloseTo(0.2);
    expect(spread(cell([100]))).toBeUndefined();
  });

  it("slower or faster only beyond the larger of the two spreads", () => {
    expect(verdict(cell([95, 100, 105]), cell([92, 94, 96]))).toBe("within spread"); // −6% < 10%
    expect(verdict(cell([99, 100, 101]), cell([79, 80, 81]))).toBe("slower"); // −20% > 2.5%
    expect(verdict(cell([99, 100, 101]), cell([119, 120, 121]))).toBe("faster");
    expect(verdict(cell([60, 100, 140]), cell([70, 75, 80]))).toBe("within spread"); // a noisy before hides −25%
  });
});
