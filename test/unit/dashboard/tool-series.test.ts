import { describe, expect, it } from "vitest";
import { formatCount } from "../../../lib/dashboard/format-count";
import { costSeries, formatCost, stormSeries } from "../../../lib/dashboard/tool-series";

const MIN = 60_000;
const buckets = [0, 1, 2, 3].map((i) => ({ at: i * MIN, end: (i + 1) * MIN }));
const iso = (ms: number) => new Date(ms).toISOString();

describe("the tool page's extra series (issue #38 §2)", () => {
  it("places reported costs on the decisions chart's buckets, zero where none was reported", () => {
    expect(costSeries(buckets, [{ at: iso(MIN), amount: 1.5 }, { at: iso(3 * MIN), amount: 0.25 }]).map((p) => p.value)).toEqual([0, 1.5, 0, 0.25]);
  });

  it("counts the storms open in each bucket; an open storm lasts until now", () => {
    const storms = [
      { startedAt: iso(30_000), endedAt: iso(MIN + 10_000) },
      { startedAt: iso(2 * MIN + 5_000), endedAt: null },
    ];
    expect(stormSeries(buckets, storms).map((p) => p.value)).toEqual([1, 1, 1, 1]);
    expect(stormSeries(buckets, [{ startedAt: iso(MIN), endedAt: iso(2 * MIN) }]).map((p) => p.value)).toEqual([0, 1, 0, 0]);
  });

  it("money and counts as people read them", () => {
    expect(formatCost(14.88, "USD")).toBe("$14.88");
    expect(formatCost(1200, "USD", true)).toBe("$1.2K");
    expect(formatCount(105)).toBe("105");
    expect(formatCount(2.25)).toBe("2.3");
    expect(formatCount(1234)).toBe("1,234");
  });
});
