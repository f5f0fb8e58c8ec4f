import { describe, expect, it } from "vitest";
import { type DecisionTally, emptyTally } from "@/lib/core/simulate-policy";
import { formatChange, prepareSimulationRows } from "@/lib/dashboard/prepare-simulation";

const tally = (over: Partial<DecisionTally> = {}): DecisionTally => ({ ...emptyTally(), ...over });

describe("prepareSimulationRows", () => {
  it("pairs each decision with what the draft would have decided and the difference", () => {
    const rows = prepareSimulationRows(tally({ executed: 10, deduped: 4 }), tally({ executed: 10, refused: 4 }));
    expect(rows).toEqual([
      { key: "executed", label: "Executed", actual: 10, draft: 10, change: 0 },
      { key: "deduped", label: "Deduplicated", actual: 4, draft: 0, change: -4 },
      { key: "refused", label: "Refused", actual: 0, draft: 4, change: 4 },
    ]);
  });

  it("leaves out decisions neither side ever made", () => {
    expect(prepareSimulationRows(tally(), tally())).toEqual([]);
    expect(prepareSimulationRows(tally({ rejected: 1 }), tally()).map((r) => r.key)).toEqual(["rejected"]);
  });
});

describe("formatChange", () => {
  it("always writes the sign", () => {
    expect(formatChange(3)).toBe("+3");
    expect(formatChange(-2)).toBe("−2");
    expect(formatChange(0)).toBe("no change");
  });
});
