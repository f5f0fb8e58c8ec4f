import { describe, expect, it } from "vitest";
import { diffArgs } from "@/lib/dashboard/args-diff";

describe("diffArgs", () => {
  it("lists changed, removed and added leaves, nested paths spelled out", () => {
    expect(diffArgs({ order: "o:7", amount: 1999, items: [{ sku: "a", qty: 1 }], note: "x" }, { order: "o:7", amount: 2099, items: [{ sku: "a", qty: 2 }], gift: true })).toEqual([
      { path: "amount", kind: "changed", before: 1999, after: 2099 },
      { path: "items[0].qty", kind: "changed", before: 1, after: 2 },
      { path: "note", kind: "removed", before: "x" },
      { path: "gift", kind: "added", after: true },
    ]);
  });

  it("equal sets, whatever the key order, have no differences", () => {
    expect(diffArgs({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
  });

  it("a type change and scalar args are differences too", () => {
    expect(diffArgs({ amount: 42 }, { amount: "42.00" })).toEqual([{ path: "amount", kind: "changed", before: 42, after: "42.00" }]);
    expect(diffArgs("a", "b")).toEqual([{ path: "(args)", kind: "changed", before: "a", after: "b" }]);
  });
});
