import { describe, expect, it } from "vitest";
import { alignRange } from "../../../lib/core/buckets";
import { mergeHits } from "../../../lib/core/hit-counts";
import { describeKind, tallyKinds } from "../../../lib/core/rollup-tally";

describe("rollup kinds", () => {
  it("names the event type and decision of each kind the trigger writes", () => {
    expect(describeKind("replay")).toEqual({ type: "begin", decision: "replay" });
    expect(describeKind("complete_released")).toEqual({ type: "complete", decision: "released" });
    expect(describeKind("lease_lost")).toEqual({ type: "lease_lost", decision: "lease_lost" });
  });

  it("folds kinds into the figures operators read", () => {
    const figures = tallyKinds([
      { kind: "execute", total: 10, latencyUs: 10_000 },
      { kind: "verify", total: 2, latencyUs: 2_000 },
      { kind: "replay", total: 5, latencyUs: 5_000 },
      { kind: "in_progress", total: 2, latencyUs: 2_000 },
      { kind: "refused", total: 1, latencyUs: 1_000 },
      { kind: "conflict", total: 3, latencyUs: 3_000 },
      { kind: "blocked", total: 4, latencyUs: 4_000 },
      { kind: "approval_required", total: 1, latencyUs: 1_000 },
      { kind: "complete_succeeded", total: 7, latencyUs: 99_000 },
      { kind: "complete_failed", total: 2, latencyUs: 0 },
      { kind: "complete_released", total: 1, latencyUs: 0 },
      { kind: "lease_lost", total: 1, latencyUs: 0 },
      { kind: "replay", total: 1, latencyUs: 1_000 },
    ]);
    expect(figures).toEqual({
      begins: 29,
      dedupHits: 9,
      dedupRate: 9 / 29,
      executions: 12,
      replays: 6,
      inProgress: 2,
      refused: 1,
      conflicts: 3,
      blocked: 4,
      approvalRequired: 1,
      previewRequired: 0,
      completes: { succeeded: 7, failed: 2, released: 1 },
      failures: 3,
      leaseLost: 1,
      meanBeginLatencyMs: 1,
    });
  });

  it("reports a zero rate and no latency without begins", () => {
    expect(tallyKinds([{ kind: "complete_succeeded", total: 3, latencyUs: 10 }])).toMatchObject({ begins: 0, dedupRate: 0, meanBeginLatencyMs: null });
  });
});

describe("heavy hitters of a storm", () => {
  it("adds a window's counts into the tally and keeps the heaviest, ties by name", () => {
    const { merged, distinct } = mergeHits(
      [
        { name: "a", hits: 5 },
        { name: "b", hits: 3 },
      ],
      [
        { name: "b", hits: 4 },
        { name: "c", hits: 5 },
        { name: "d", hits: 1 },
      ],
      3,
    );
    expect(merged).toEqual([
      { name: "b", hits: 7 },
      { name: "a", hits: 5 },
      { name: "c", hits: 5 },
    ]);
    expect(distinct).toBe(4);
  });
});

describe("chart buckets", () => {
  it("widens a range to whole buckets", () => {
    expect(alignRange(90_000, 150_001, 60_000)).toEqual({ from: 60_000, to: 180_000 });
    expect(alignRange(120_000, 180_000, 60_000)).toEqual({ from: 120_000, to: 180_000 });
  });
});
