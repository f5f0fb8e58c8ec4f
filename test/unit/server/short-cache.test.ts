import { describe, expect, it } from "vitest";
import { ShortCache } from "../../../lib/server/short-cache";

describe("ShortCache: the gateway's per-request rows, kept a second", () => {
  it("one load within the TTL, shared by concurrent misses; another after it, or after forget", async () => {
    let now = 0;
    let loads = 0;
    const cache = new ShortCache<number>(1_000, () => now);
    const load = async () => ++loads;
    expect(await Promise.all([cache.get("a", load), cache.get("a", load)])).toEqual([1, 1]);
    now = 999;
    expect(await cache.get("a", load)).toBe(1);
    now = 1_000;
    expect(await cache.get("a", load)).toBe(2);
    cache.forget("a");
    expect(await cache.get("a", load)).toBe(3);
  });

  it("a failed load is not kept", async () => {
    const cache = new ShortCache<number>(1_000);
    await expect(cache.get("a", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("a", async () => 7)).toBe(7);
  });
});
