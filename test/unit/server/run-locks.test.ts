import { describe, expect, it } from "vitest";
import { RunLocks } from "../../../lib/server/gate/run-locks";

describe("RunLocks (issue #38 §1a: losers of a loop race queue per run)", () => {
  it("hands a run's lock out in order, one holder at a time; other runs never wait", async () => {
    const locks = new RunLocks();
    const order: string[] = [];
    const first = await locks.acquire("p\u0000run");
    const second = locks.acquire("p\u0000run").then((release) => (order.push("second"), release));
    const third = locks.acquire("p\u0000run").then((release) => (order.push("third"), release));
    const other = await locks.acquire("p\u0000other");
    order.push("other");
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["other"]);
    first();
    first(); // idempotent: a second release frees nobody else
    (await second)();
    (await third)();
    other();
    expect(order).toEqual(["other", "second", "third"]);
  });

  it("leaves no entry behind once the last holder is gone", async () => {
    const locks = new RunLocks();
    (await locks.acquire("k"))();
    expect((locks as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
  });
});
