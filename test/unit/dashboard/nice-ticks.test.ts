import { describe, expect, it } from "vitest";
import { niceTicks } from "@/lib/dashboard/nice-ticks";

describe("niceTicks", () => {
  it("steps by 1, 2, 2.5 or 5 times a power of ten and ends at or above the maximum", () => {
    expect(niceTicks(46)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(niceTicks(23)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(1234)).toEqual([0, 250, 500, 750, 1000, 1250]);
    expect(niceTicks(12)).toEqual([0, 5, 10, 15]);
  });

  it("keeps fractions for small non-integer axes and never returns a single tick", () => {
    expect(niceTicks(1.1, 5, false)).toEqual([0, 0.25, 0.5, 0.75, 1, 1.25]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it("every tick is a multiple of its step, so labels read cleanly", () => {
    for (const max of [3, 17, 99, 101, 512, 9_999]) {
      const ticks = niceTicks(max);
      const step = ticks[1]! - ticks[0]!;
      expect(ticks.every((t, i) => t === i * step)).toBe(true);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      expect(/^(1|2|25|5)0*$/.test(String(step))).toBe(true);
    }
  });
});
