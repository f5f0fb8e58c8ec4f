import { describe, expect, it } from "vitest";
import { RunTurns } from "../../../lib/server/gate/run-turns";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("RunTurns (issue #38 §1a: one loop step at a time per run, in this process)", () => {
  it("hands a run's turn out in arrival order, one holder at a time; other runs never wait", async () => {
    const turns = new RunTurns();
    const order: string[] = [];
    const first = turns.tryTake("p\u0000run")!;
    expect(first).not.toBeNull();
    expect(turns.tryTake("p\u0000run")).toBeNull();
    const second = turns.take("p\u0000run").then((release) => (order.push("second"), release!));
    const third = turns.take("p\u0000run").then((release) => (order.push("third"), release!));
    const other = turns.tryTake("p\u0000other")!;
    expect(other).not.toBeNull();
    await tick();
    expect(order).toEqual([]);
    expect(turns.size).toEqual({ runs: 2, waiting: 2 });
    first();
    first(); // idempotent: a second release hands nothing on
    await tick();
    expect(order).toEqual(["second"]);
    (await second)();
    (await third)();
    other();
    expect(order).toEqual(["second", "third"]);
    expect(turns.size).toEqual({ runs: 0, waiting: 0 });
  });

  it("a free run's turn is taken without waiting, and its entry goes with the last release", async () => {
    const turns = new RunTurns();
    const release = await turns.take("k");
    expect(release).not.toBeNull();
    release!();
    expect(turns.size).toEqual({ runs: 0, waiting: 0 });
  });

  it("past the bound of waiting begins, a begin gets no turn (decided as read) instead of waiting or failing", async () => {
    const turns = new RunTurns(2);
    const held = turns.tryTake("k")!;
    const waiting = [turns.take("k"), turns.take("k")];
    expect(await turns.take("k")).toBeNull();
    expect(await turns.take("other")).not.toBeNull();
    held();
    (await waiting[0]!)!();
    (await waiting[1]!)!();
    expect(turns.size.waiting).toBe(0);
  });
});
