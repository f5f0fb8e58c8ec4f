import { describe, expect, it } from "vitest";
import type { TimeseriesResponse } from "@/lib/contract/stats";
import { prepareToolSparklines } from "@/lib/dashboard/prepare-tool-sparklines";

const base: TimeseriesResponse = {
  projectId: "proj_x",
  from: "2026-01-01T00:00:00.000Z",
  to: "2026-01-01T00:04:00.000Z",
  bucket: "minute",
  bucketSeconds: 60,
  tool: null,
  series: [],
};
const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;
const series = (tool: string, decision: string, counts: Record<number, number>, type: "begin" | "complete" = "begin") => ({
  tool,
  type,
  decision,
  total: Object.values(counts).reduce((a, b) => a + b, 0),
  points: Object.entries(counts).map(([minute, count]) => ({ at: at(Number(minute)), count })),
});

describe("prepareToolSparklines", () => {
  it("per tool: calls are every begin decision, dedup hits are replay + in_progress + refused, every bucket present", () => {
    const [mail] = prepareToolSparklines({
      ...base,
      series: [
        series("mail", "execute", { 0: 2, 2: 1 }),
        series("mail", "replay", { 2: 3 }),
        series("mail", "in_progress", { 3: 1 }),
        series("mail", "refused", { 3: 1 }),
        series("mail", "conflict", { 1: 1 }),
        series("mail", "succeeded", { 0: 2 }, "complete"),
      ],
    });
    expect(mail).toEqual({
      tool: "mail",
      calls: 9,
      dedupHits: 5,
      dedupRate: 5 / 9,
      points: [
        { at: Date.parse(at(0)), calls: 2, dedupHits: 0 },
        { at: Date.parse(at(1)), calls: 1, dedupHits: 0 },
        { at: Date.parse(at(2)), calls: 4, dedupHits: 3 },
        { at: Date.parse(at(3)), calls: 2, dedupHits: 2 },
      ],
    });
  });

  it("orders by dedup rate, then calls, then name; tools with only completes are left out", () => {
    const tools = prepareToolSparklines({
      ...base,
      series: [
        series("quiet", "execute", { 0: 1 }),
        series("busy", "execute", { 0: 5 }),
        series("loopy", "execute", { 0: 1 }),
        series("loopy", "replay", { 1: 1 }),
        series("late", "succeeded", { 0: 1 }, "complete"),
      ],
    });
    expect(tools.map((t) => [t.tool, t.dedupRate])).toEqual([
      ["loopy", 0.5],
      ["busy", 0],
      ["quiet", 0],
    ]);
  });

  it("ignores points outside the range", () => {
    const [tool] = prepareToolSparklines({ ...base, series: [series("a", "execute", { 0: 1 }), { ...series("a", "replay", {}), points: [{ at: "2026-01-01T00:09:00.000Z", count: 4 }] }] });
    expect(tool!.points.map((p) => p.calls)).toEqual([1, 0, 0, 0]);
    expect(tool!.dedupHits).toBe(0);
  });
});
