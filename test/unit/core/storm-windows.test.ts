import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import { BASELINE_WINDOWS, type StormState, stepStorm } from "../../../lib/core/storm-detector";
import {
  MAX_CATCH_UP_WINDOWS,
  closeGraceMs,
  firstWholeWindow,
  historyBefore,
  lastClosedWindow,
  windowsToJudge,
} from "../../../lib/core/storm-windows";

describe("storm windows against the ledger", () => {
  it("judges a window only once it has ended, plus a grace for events still being written", () => {
    const w = 60_000;
    expect(closeGraceMs(w)).toBe(2_000);
    expect(closeGraceMs(1_000)).toBe(250);
    // window 9 = [540 s, 600 s): closed at 600 s, judged from 602 s
    expect(lastClosedWindow(601_999, w)).toBe(8);
    expect(lastClosedWindow(602_000, w)).toBe(9);
  });

  it("judges every window after the last judged one, but never more than the catch-up limit", () => {
    expect(windowsToJudge(20, 17)).toEqual([18, 19, 20]);
    expect(windowsToJudge(20, 20)).toEqual([]);
    expect(windowsToJudge(20, 25)).toEqual([]);
    expect(windowsToJudge(100, 3)).toHaveLength(MAX_CATCH_UP_WINDOWS);
    expect(windowsToJudge(100, 3).at(-1)).toBe(100);
  });

  it("judges only the latest window when nothing was judged before: a fresh detector does not replay history", () => {
    expect(windowsToJudge(20, null)).toEqual([20]);
  });

  it("builds the trailing history with zeros for windows without hits, never before the tool was first seen", () => {
    const hits = new Map([
      [5, 3],
      [7, 1],
    ]);
    expect(historyBefore(hits, 9, 0)).toEqual([0, 0, 0, 0, 0, 3, 0, 1, 0]);
    expect(historyBefore(hits, 9, 6)).toEqual([0, 1, 0]);
    expect(historyBefore(hits, 30, 0)).toHaveLength(BASELINE_WINDOWS);
    expect(historyBefore(hits, 6, 6)).toEqual([]);
  });

  it("counts the window a tool first appeared in as partial history: the first whole window is the next", () => {
    expect(firstWholeWindow(120_000, 60_000)).toBe(2);
    expect(firstWholeWindow(120_001, 60_000)).toBe(3);
  });

  it("a gate that starts during a burst judges it by no zero baseline: without the begins (its rate unknown) the absolute rule never holds", () => {
    const policy = DEFAULT_POLICY.storm;
    const hits = new Map([
      [10, 500],
      [11, 500],
      [12, 500],
    ]);
    let state: StormState = { open: false };
    for (const window of [10, 11, 12]) {
      const step = stepStorm(state, historyBefore(hits, window, 10), hits.get(window)!, window * 60_000, policy);
      expect(step.transition).toBeNull();
      state = step.state;
    }
  });
});
