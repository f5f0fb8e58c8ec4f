import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import { QUIET_WINDOWS_TO_CLOSE, detectStorms, stepStorm } from "../../../lib/core/storm-detector";

const storm = DEFAULT_POLICY.storm; // 60 s windows, ≥ 20 hits, 5× baseline

describe("retry-storm detection", () => {
  it("a burst over a quiet baseline opens exactly one incident and closes it after the burst", () => {
    const series = [1, 0, 2, 1, 1, 40, 55, 48, 2, 1, 0, 1, 1];
    const { transitions, state } = detectStorms(series, storm);
    expect(transitions).toEqual([
      { index: 5, transition: "opened" },
      { index: 8 + QUIET_WINDOWS_TO_CLOSE - 1, transition: "closed" },
    ]);
    expect(state.open).toBe(false);
  });

  it("a steady high-but-normal rate opens none", () => {
    const series = Array.from({ length: 30 }, (_, i) => 100 + (i % 3) * 10);
    expect(detectStorms(series, storm).transitions).toEqual([]);
  });

  it("needs minHits even over a zero baseline", () => {
    expect(detectStorms([0, 0, 0, 0, 19], storm).transitions).toEqual([]);
    expect(detectStorms([0, 0, 0, 0, 20], storm).transitions).toEqual([{ index: 4, transition: "opened" }]);
  });

  it("needs factor × baseline over a busy baseline", () => {
    const busy = [30, 30, 30, 30];
    expect(detectStorms([...busy, 149], storm).transitions).toEqual([]);
    expect(detectStorms([...busy, 150], storm).transitions).toEqual([{ index: 4, transition: "opened" }]);
  });

  it("does not open without enough history (a gate starting during heavy traffic)", () => {
    expect(detectStorms([500, 500], storm).transitions).toEqual([]);
  });

  it("keeps the baseline frozen while open, tracks the peak, and survives one quiet window", () => {
    let step = stepStorm({ open: false }, [1, 1, 1], 30, 0, storm);
    expect(step.transition).toBe("opened");
    step = stepStorm(step.state, [1, 1, 1, 30], 80, 1, storm);
    expect(step.state).toMatchObject({ open: true, baseline: 1, peakHits: 80, quietWindows: 0 });
    step = stepStorm(step.state, [1, 1, 1, 30, 80], 2, 2, storm);
    expect(step.state).toMatchObject({ open: true, quietWindows: 1 });
    step = stepStorm(step.state, [1, 1, 1, 30, 80, 2], 25, 3, storm);
    expect(step.state).toMatchObject({ open: true, quietWindows: 0 });
  });

  it("honours the policy's own minHits and factor", () => {
    const strict = { ...storm, minHits: 5, factor: 2 };
    expect(detectStorms([2, 2, 2, 5], strict).transitions).toEqual([{ index: 3, transition: "opened" }]);
    expect(detectStorms([2, 2, 2, 5], storm).transitions).toEqual([]);
  });
});
