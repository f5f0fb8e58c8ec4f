import { describe, expect, it } from "vitest";
import { computeToolFigures, percentile } from "../../../lib/core/tool-figures";

describe("computeToolFigures (per-tool page, issue #38 §2)", () => {
  it("counts decisions in the overview's vocabulary and times executions from begin to the same attempt's complete", () => {
    const figures = computeToolFigures([
      { type: "begin", decision: "execute", callId: "a", attempt: 1, at: 1_000 },
      { type: "begin", decision: "in_progress", callId: "a", attempt: 1, at: 1_010 },
      { type: "complete", decision: "released", callId: "a", attempt: 1, at: 1_100 },
      { type: "begin", decision: "execute", callId: "a", attempt: 2, at: 1_200 },
      { type: "complete", decision: "succeeded", callId: "a", attempt: 2, at: 1_500 },
      { type: "begin", decision: "replay", callId: "a", attempt: 2, at: 1_600 },
      { type: "begin", decision: "blocked", callId: null, attempt: 0, at: 1_700 },
      // An attempt begun before the range: counted as a complete, not timed.
      { type: "complete", decision: "failed", callId: "old", attempt: 1, at: 1_800 },
    ]);
    expect(figures).toMatchObject({ calls: 5, dedupHits: 2, dedupRate: 0.4, completes: 3, failures: 2, latency: { count: 2, p50Ms: 100, p95Ms: 300 } });
    expect(figures.decisions).toEqual({ execute: 2, in_progress: 1, replay: 1, blocked: 1 });
    expect(figures.failureRate).toBeCloseTo(2 / 3);
  });

  it("sums the costs completes reported, per currency and per bucket, without float drift", () => {
    const cost = (amount: number, currency = "USD") => JSON.stringify({ cost: { amount, currency }, costCounted: false });
    const figures = computeToolFigures(
      [
        { type: "begin", decision: "execute", callId: "a", attempt: 1, at: 1_000, detail: cost(99) },
        { type: "complete", decision: "succeeded", callId: "a", attempt: 1, at: 1_100, detail: cost(0.1) },
        { type: "complete", decision: "failed", callId: "b", attempt: 1, at: 1_200, detail: cost(0.2) },
        { type: "complete", decision: "succeeded", callId: "c", attempt: 1, at: 61_000, detail: cost(0.3) },
        { type: "complete", decision: "succeeded", callId: "d", attempt: 1, at: 61_500, detail: cost(2, "EUR") },
        { type: "complete", decision: "succeeded", callId: "e", attempt: 1, at: 62_000, detail: null },
        { type: "complete", decision: "succeeded", callId: "f", attempt: 1, at: 62_500, detail: "{not json" },
      ],
      60_000,
    );
    expect(figures.costs).toEqual([
      { currency: "EUR", amount: 2, completes: 1, series: [{ at: 60_000, amount: 2 }] },
      { currency: "USD", amount: 0.6, completes: 3, series: [{ at: 0, amount: 0.3 }, { at: 60_000, amount: 0.3 }] },
    ]);
    expect(computeToolFigures([]).costs).toEqual([]);
  });

  it("nearest-rank percentiles", () => {
    const values = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(values, 0.5)).toBe(10);
    expect(percentile(values, 0.95)).toBe(19);
    expect(percentile([], 0.5)).toBeNull();
  });
});
