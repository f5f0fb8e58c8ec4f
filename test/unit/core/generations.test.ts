import { describe, expect, it } from "vitest";
import { baseKeyOf, generationKey, generationOf, isCachedOutcome, isCompleted } from "../../../lib/core/generations";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import { NOW, SECOND, makeRecord, succeededRecord } from "./fixtures";

const KEY = "a".repeat(64);

describe("key generations", () => {
  it("generation 1 is the derived key itself; later ones append :g<n>, and both directions agree", () => {
    expect(generationKey(KEY, 1)).toBe(KEY);
    expect(generationKey(KEY, 2)).toBe(`${KEY}:g2`);
    expect(generationKey(KEY, 12)).toBe(`${KEY}:g12`);
    for (const n of [1, 2, 3, 40]) {
      expect(baseKeyOf(generationKey(KEY, n))).toBe(KEY);
      expect(generationOf(generationKey(KEY, n))).toBe(n);
    }
  });

  it("an always-executing tool's per-call key is not mistaken for a generation", () => {
    const perCall = `${KEY}:call_0abc`;
    expect(baseKeyOf(perCall)).toBe(perCall);
    expect(generationOf(perCall)).toBe(1);
  });

  it("only a live cached outcome is something a resend can bypass", () => {
    const failed = succeededRecord({ state: "failed", result: null, error: JSON.stringify({ message: "no", retryable: false }) });
    expect(isCachedOutcome(succeededRecord(), DEFAULT_POLICY, NOW)).toBe(true);
    expect(isCachedOutcome(failed, DEFAULT_POLICY, NOW)).toBe(true);
    expect(isCachedOutcome(failed, { ...DEFAULT_POLICY, cacheFailures: false }, NOW)).toBe(false);
    expect(isCachedOutcome(succeededRecord({ expiresAt: NOW - SECOND }), DEFAULT_POLICY, NOW)).toBe(false);
    expect(isCachedOutcome(makeRecord(), DEFAULT_POLICY, NOW)).toBe(false);
    expect(isCachedOutcome(null, DEFAULT_POLICY, NOW)).toBe(false);
    expect(isCompleted(failed)).toBe(true);
    expect(isCompleted(makeRecord())).toBe(false);
  });
});
