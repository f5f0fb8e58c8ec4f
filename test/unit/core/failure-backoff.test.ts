import { describe, expect, it } from "vitest";
import { failureBackoffMs } from "../../../lib/core/failure-backoff";

describe("failureBackoffMs: background loops back off from a failing store", () => {
  it("is the interval while passes succeed, then doubles per failure in a row up to the bound, half of it jittered", () => {
    expect(failureBackoffMs(1_000, 0, 60_000, () => 0.7)).toBe(1_000);
    // The lowest and highest jitter bracket interval × 2^n.
    for (const [failures, full] of [[1, 2_000], [2, 4_000], [5, 32_000], [6, 60_000], [40, 60_000]] as const) {
      expect(failureBackoffMs(1_000, failures, 60_000, () => 0)).toBe(full / 2);
      expect(failureBackoffMs(1_000, failures, 60_000, () => 1)).toBe(full);
    }
    // A bound below the interval never makes a failing loop faster than a healthy one.
    expect(failureBackoffMs(5_000, 3, 1_000, () => 1)).toBe(5_000);
  });
});
