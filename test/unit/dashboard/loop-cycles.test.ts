import { describe, expect, it } from "vitest";
import { loopCycles } from "@/lib/dashboard/loop-cycles";

const blocked = (at: string, pattern: string[] | null, repeats = 3) => ({
  type: "begin",
  decision: "blocked",
  at,
  tool: pattern?.at(-1) ?? "fetch_page",
  detail: pattern ? { loop: { reason: "loop_detected", pattern, repeats } } : null,
});

describe("loopCycles", () => {
  it("names each cycle a run was blocked for, with how often it blocked", () => {
    const events = [
      { type: "begin", decision: "execute", at: "t0", tool: "search_kb", detail: null },
      blocked("t1", ["search_kb", "fetch_page"]),
      blocked("t2", ["search_kb", "fetch_page"]),
      blocked("t3", ["notify"], 2),
    ];
    expect(loopCycles(events)).toEqual([
      { text: "search_kb → fetch_page ×3", pattern: ["search_kb", "fetch_page"], repeats: 3, blocked: 2, firstAt: "t1", lastAt: "t2" },
      { text: "notify ×2", pattern: ["notify"], repeats: 2, blocked: 1, firstAt: "t3", lastAt: "t3" },
    ]);
    expect(loopCycles([blocked("t4", null)])[0]!.text).toBe("fetch_page");
    // A budget's refusal is blocked too, but no cycle.
    const budget = { type: "begin", decision: "blocked", at: "t5", tool: "refund", detail: { reason: "budget_exceeded", budget: { exceeded: "calls" } } };
    expect(loopCycles([budget])).toEqual([]);
    expect(loopCycles([])).toEqual([]);
  });
});
