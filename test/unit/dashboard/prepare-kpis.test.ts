import { describe, expect, it } from "vitest";
import type { DedupResponse } from "@/lib/contract/stats";
import { formatRate, prepareKpis } from "@/lib/dashboard/prepare-kpis";
import { rangeBounds } from "@/lib/dashboard/range";

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
    expect(kpis.map((k) => k.value)).toEqual(["—", "—", "—", "—", "—", "—"]);
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
