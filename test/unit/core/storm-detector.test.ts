import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import { QUIET_WINDOWS_TO_CLOSE, detectStorms, judgeOpening, stepStorm } from "../../../lib/core/storm-detector";

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

  it("until it has a baseline, the absolute rule judges, from the project's first window on (issue #38)", () => {
    // Startup traffic: agents reconnecting and queued retries, a high share of them duplicates, but under the absolute rate.
    expect(detectStorms([{ hits: 500, begins: 600 }], storm).transitions).toEqual([]);
    // A burst in the very first window that is nearly all duplicates is a storm.
    expect(detectStorms([{ hits: 168, begins: 181 }], storm).transitions).toEqual([{ index: 0, transition: "opened" }]);
    expect(judgeOpening([], { hits: 168, begins: 181 }, storm)).toMatchObject({ opens: true, rule: "absolute" });
    expect(detectStorms([{ hits: 500, begins: 600 }, { hits: 99, begins: 100 }, { hits: 400, begins: 500 }], storm).transitions).toEqual([]);
    const burst = detectStorms([{ hits: 40, begins: 400 }, { hits: 168, begins: 181 }], storm);
    expect(burst.transitions).toEqual([{ index: 1, transition: "opened" }]);
    expect(burst.state).toMatchObject({ open: true, rule: "absolute" });
    expect(judgeOpening([40], { hits: 168, begins: 181 }, storm)).toEqual({ opens: true, rule: "absolute", baseline: 40, threshold: 100 });
  });

  it("a tool new to a warm gate has a baseline: its zero windows", () => {
    const step = stepStorm({ open: false }, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], { hits: 168, begins: 181 }, 0, storm);
    expect(step).toMatchObject({ transition: "opened", threshold: 20, state: { rule: "baseline", baseline: 0 } });
  });

  it("a burst cut in two by a window boundary opens on the window straddling it", () => {
    const busy = { ...storm, minHits: 50 };
    const history = [10, 10, 10, 10];
    // 40 + 40 on either side of the boundary: neither window reaches 50, the straddling one does.
    const cut = stepStorm({ open: false }, [...history, 10 + 40], 10 + 40, 60_000, busy, {
      start: 30_000,
      counts: { hits: 80 },
      history,
    });
    expect(cut).toMatchObject({ transition: "opened", trigger: { start: 30_000, hits: 80 }, state: { baseline: 10, openedAt: 30_000 } });
    expect(stepStorm({ open: false }, [...history, 45], 45, 60_000, { ...busy, minHits: 81 }, { start: 30_000, counts: { hits: 80 }, history }).transition).toBeNull();
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
