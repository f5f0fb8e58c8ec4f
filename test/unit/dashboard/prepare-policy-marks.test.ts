import { describe, expect, it } from "vitest";
import { changesIn, policyMarks } from "../../../lib/dashboard/prepare-policy-marks";

const MIN = 60_000;
const points = [0, 1, 2].map((i) => ({ at: i * MIN, end: (i + 1) * MIN }));

describe("policyMarks (issue #38 §2: policy changes on the overview's charts)", () => {
  it("puts each change on its bucket, labelled with its tool; one label per bucket, on its first mark", () => {
    const marks = policyMarks(
      [
        { at: 2 * MIN + 5, tool: "search_kb", version: 7 },
        { at: 10, tool: "create_ticket", version: 2 },
        { at: 20, tool: "*", version: 3 },
      ],
      points,
    );
    expect(marks).toEqual([
      { at: 0, label: "create_ticket v2, project default v3" },
      { at: 0, label: "" },
      { at: 2 * MIN, label: "search_kb v7" },
    ]);
  });

  it("names versions only on one tool's page, and keeps a change no bucket holds at its own instant", () => {
    expect(policyMarks([{ at: 5 * MIN, tool: "t", version: 4 }], points, false)).toEqual([{ at: 5 * MIN, label: "v4" }]);
  });

  it("changesIn keeps [from, to)", () => {
    const from = new Date(MIN).toISOString();
    const to = new Date(2 * MIN).toISOString();
    const changes = [MIN - 1, MIN, 2 * MIN - 1, 2 * MIN].map((at) => ({ at }));
    expect(changesIn(changes, from, to).map((c) => c.at)).toEqual([MIN, 2 * MIN - 1]);
  });
});
