import { describe, expect, it } from "vitest";
import { FREE_FAILURES, MAX_DELAY_MS, signInDelayMs } from "../../../lib/core/sign-in-backoff";

describe("sign-in backoff", () => {
  it("lets a few typos pass, then doubles the wait per wrong password: the README's four wrong passwords, then 429", () => {
    expect(FREE_FAILURES).toBe(4);
    expect([1, 2, 3].map(signInDelayMs)).toEqual([0, 0, 0]);
    // The fourth wrong password is the last answered as such: the fifth attempt waits.
    const delays = [4, 5, 6, 7].map(signInDelayMs);
    expect(delays).toEqual([2_000, 4_000, 8_000, 16_000]);
  });

  it("never makes the owner wait more than five minutes, however long the guessing goes on", () => {
    for (const failures of [20, 100, 10_000, Number.MAX_SAFE_INTEGER]) expect(signInDelayMs(failures)).toBe(MAX_DELAY_MS);
    expect(MAX_DELAY_MS).toBe(5 * 60_000);
  });
});
