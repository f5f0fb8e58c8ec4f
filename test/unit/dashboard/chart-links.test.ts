import { describe, expect, it } from "vitest";
import { callsBehind, groupCallsHref } from "@/lib/dashboard/chart-links";
import { filtersFromSearch } from "@/lib/dashboard/call-filters";

const base = "/projects/proj_x";
const from = Date.parse("2026-01-01T10:00:00Z");
const to = Date.parse("2026-01-01T10:01:00Z");

describe("a chart's click opens the calls behind it", () => {
  it("a dedup-hits bar: its three decisions, in its window, as the calls page reads them", () => {
    const href = groupCallsHref(base, "dedupHits", { from, to })!;
    expect(href.startsWith(`${base}/calls?`)).toBe(true);
    expect(filtersFromSearch(new URL(href, "http://x").searchParams)).toEqual({
      decision: "replay,in_progress,refused",
      decidedFrom: "2026-01-01T10:00:00.000Z",
      decidedTo: "2026-01-01T10:01:00.000Z",
    });
  });

  it("a tool's point keeps the tool", () => {
    const href = callsBehind(base, { decisions: ["replay"], from, to, tool: "charge card" })!;
    expect(new URL(href, "http://x").searchParams.get("tool")).toBe("charge card");
  });

  it("no link for decisions the calls list cannot filter by (nothing to promise)", () => {
    expect(groupCallsHref(base, "other", { from, to })).toBeNull();
    expect(callsBehind(base, { decisions: ["no_such_decision"], from, to })).toBeNull();
  });
});
