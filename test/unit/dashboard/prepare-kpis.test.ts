import { describe, expect, it } from "vitest";
import type { DedupResponse } from "@/lib/contract/stats";
import { formatRate, groupTotals, prepareKpis } from "@/lib/dashboard/prepare-kpis";
import { rangeBounds, rangeFromSearch, rangeToSearch, resolveRange } from "@/lib/dashboard/range";

const total: DedupResponse["total"] = {
  begins: 1200,
  dedupHits: 300,
  dedupRate: 0.25,
  executions: 900,
  replays: 280,
  inProgress: 15,
  refused: 5,
  conflicts: 0,
  blocked: 0,
  approvalRequired: 0,
  previewRequired: 0,
  completes: { succeeded: 880, failed: 10, released: 10 },
  failures: 20,
  leaseLost: 0,
  meanBeginLatencyMs: 1.2,
};

describe("prepareKpis", () => {
  it("shows the figures, formatted", () => {
    const kpis = prepareKpis({ dedup: { projectId: "p", from: "", to: "", total, tools: [] }, pendingApprovals: 2, openStorms: 0 });
    const by = Object.fromEntries(kpis.map((k) => [k.id, k]));
    expect(by.calls?.value).toBe("1,200");
    expect(by["dedup-rate"]?.value).toBe("25%");
    expect(by.pending?.tone).toBe("warn");
    expect(by.storms?.tone).toBeUndefined();
  });

  it("shows a dash, not a zero, for figures it does not have", () => {
    const kpis = prepareKpis({ dedup: undefined, pendingApprovals: undefined, openStorms: undefined });
    expect(kpis.every((k) => k.value === "—")).toBe(true);
  });

  it("every call is in exactly one decision tile: the tiles add up to the calls, blocked and approval required included", () => {
    const mixed = { ...total, begins: 1209, blocked: 4, approvalRequired: 3, previewRequired: 2 };
    const kpis = prepareKpis({ dedup: { projectId: "p", from: "", to: "", total: mixed, tools: [] }, pendingApprovals: 0, openStorms: 0 });
    const tiles = kpis.filter((k) => k.group);
    expect(tiles.map((k) => k.label)).toEqual(["Executions", "Dedup hits", "Conflicts", "Approval required", "Preview required", "Blocked"]);
    const sum = tiles.reduce((s, k) => s + Number(k.value.replace(/,/g, "")), 0);
    expect(sum).toBe(1209);
    // preview_required is a decision the gate issues: its own tile, never "Other" (issue #38).
    expect(kpis.find((k) => k.id === "preview-required")?.value).toBe("2");
    expect(kpis.some((k) => k.id === "other")).toBe(false);
    expect(groupTotals(mixed).other).toBe(0);
  });

  it("a decision it does not know gets an Other tile, so nothing goes uncounted", () => {
    const kpis = prepareKpis({ dedup: { projectId: "p", from: "", to: "", total: { ...total, begins: 1205 }, tools: [] }, pendingApprovals: 0, openStorms: 0 });
    expect(kpis.find((k) => k.id === "other")?.value).toBe("5");
  });

  it("keeps a decimal for small rates", () => {
    expect(formatRate(0.034)).toBe("3.4%");
    expect(formatRate(0)).toBe("0%");
  });
});

describe("rangeBounds", () => {
  it("rounds the end up to the next whole bucket, so polls within a bucket share a query key", () => {
    const a = rangeBounds("1h", Date.parse("2026-01-01T10:00:10Z"));
    const b = rangeBounds("1h", Date.parse("2026-01-01T10:00:50Z"));
    expect(a).toEqual(b);
    expect(a).toEqual({ from: "2026-01-01T09:01:00.000Z", to: "2026-01-01T10:01:00.000Z", bucket: "minute" });
  });
});

describe("the range in the URL", () => {
  const search = (query: string) => new URLSearchParams(query);

  it("a preset and a custom range each round-trip through the URL", () => {
    expect(rangeFromSearch(search("range=24h"))).toEqual({ kind: "preset", id: "24h" });
    const custom = rangeFromSearch(search("from=2026-01-01T00:00:00Z&to=2026-01-03T12:00:00Z"));
    expect(custom).toEqual({ kind: "custom", from: Date.parse("2026-01-01T00:00:00Z"), to: Date.parse("2026-01-03T12:00:00Z") });
    expect(rangeFromSearch(rangeToSearch(custom))).toEqual(custom);
    expect(rangeToSearch({ kind: "preset", id: "7d" }).toString()).toBe("range=7d");
  });

  it("a bad or backwards range falls back to the last hour", () => {
    expect(rangeFromSearch(search("range=2y"))).toEqual({ kind: "preset", id: "1h" });
    expect(rangeFromSearch(search("from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z"))).toEqual({ kind: "preset", id: "1h" });
    expect(rangeFromSearch(search("from=yesterday&to=today"))).toEqual({ kind: "preset", id: "1h" });
  });

  it("picks a bucket that keeps the bars countable, and widens a custom range to whole buckets", () => {
    const now = Date.parse("2026-01-10T10:00:10Z");
    expect(resolveRange({ kind: "preset", id: "6h" }, now).bucket).toBe("minute");
    expect(resolveRange({ kind: "preset", id: "7d" }, now).bucket).toBe("hour");
    expect(resolveRange({ kind: "preset", id: "30d" }, now).bucket).toBe("day");
    const custom = resolveRange({ kind: "custom", from: Date.parse("2026-01-01T00:10:30Z"), to: Date.parse("2026-01-01T02:00:10Z") }, now);
    expect(custom).toMatchObject({ from: "2026-01-01T00:10:00.000Z", to: "2026-01-01T02:01:00.000Z", bucket: "minute" });
    expect(custom.label).toBe("2026-01-01 00:10 – 2026-01-01 02:01 UTC");
  });
});
