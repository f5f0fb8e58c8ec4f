import { describe, expect, it } from "vitest";
import { type DecisionTally, emptyTally } from "@/lib/core/simulation-tally";
import { describeSimulationGaps, formatChange, prepareSimulationRows } from "@/lib/dashboard/prepare-simulation";

const tally = (over: Partial<DecisionTally> = {}): DecisionTally => ({ ...emptyTally(), ...over });

describe("prepareSimulationRows", () => {
  it("pairs each decision with what the draft would have decided and the difference", () => {
    const rows = prepareSimulationRows(tally({ executed: 10, deduped: 4 }), tally({ executed: 10, refused: 4 }));
    expect(rows).toEqual([
      { key: "executed", label: "Executed", actual: 10, current: 10, draft: 10, change: 0 },
      { key: "deduped", label: "Deduplicated", actual: 4, current: 4, draft: 0, change: -4 },
      { key: "refused", label: "Refused", actual: 0, current: 0, draft: 4, change: 4 },
    ]);
  });

  it("compares the draft with the policy in force replayed, not with the record (issue #38 identity)", () => {
    const recorded = tally({ executed: 10, deduped: 167, blocked: 1 });
    const replayed = tally({ executed: 10, deduped: 156, blocked: 12 });
    const rows = prepareSimulationRows(recorded, replayed, replayed);
    expect(rows.every((row) => row.change === 0)).toBe(true);
    expect(rows.find((row) => row.key === "blocked")).toMatchObject({ actual: 1, current: 12, draft: 12 });
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

describe("describeSimulationGaps", () => {
  it("says how many calls could not be replayed and why, and which outcomes were assumed", () => {
    expect(describeSimulationGaps([{ reason: "their records were purged", count: 47 }], 0)).toEqual([
      "47 calls could not be replayed: their records were purged. They are left out of both columns.",
    ]);
    expect(describeSimulationGaps([], 1)).toEqual([
      "1 call would run under the draft but never ran: each is assumed to end like the call it was deduplicated against.",
    ]);
    expect(describeSimulationGaps([], 0)).toEqual([]);
  });
});
