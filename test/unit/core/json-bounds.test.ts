import { describe, expect, it } from "vitest";
import { JSON_BOUNDS, findJsonBoundViolation } from "../../../lib/core/json-bounds";

const nest = (depth: number): unknown => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);

describe("findJsonBoundViolation", () => {
  it("accepts JSON up to every bound", () => {
    expect(findJsonBoundViolation(nest(JSON_BOUNDS.maxDepth))).toBeNull();
    expect(findJsonBoundViolation({ a: Array.from({ length: JSON_BOUNDS.maxArrayLength }, () => 0) })).toBeNull();
    expect(findJsonBoundViolation(Object.fromEntries(Array.from({ length: JSON_BOUNDS.maxKeys }, (_, i) => [`k${i}`, null])))).toBeNull();
    expect(findJsonBoundViolation("text")).toBeNull();
  });

  it("names the first bound broken and where, without overflowing on a million levels", () => {
    expect(findJsonBoundViolation(nest(JSON_BOUNDS.maxDepth + 1))).toMatchObject({ code: "too_deep" });
    const deep = findJsonBoundViolation({ result: { tree: nest(1_000_000) } });
    expect(deep).toMatchObject({ code: "too_deep" });
    expect(deep!.path.slice(0, 3)).toEqual(["result", "tree", 0]);
    expect(deep!.path.length).toBe(13); // twelve steps and a count of the rest
    expect(findJsonBoundViolation({ list: new Array(JSON_BOUNDS.maxArrayLength + 1).fill(0) })).toMatchObject({ code: "too_long", path: ["list"] });
    const wide = Object.fromEntries(Array.from({ length: JSON_BOUNDS.maxKeys + 1 }, (_, i) => [`k${i}`, i]));
    expect(findJsonBoundViolation([wide])).toMatchObject({ code: "too_many_keys", path: [0] });
  });

  it("a cycle (possible in-process) fails the depth bound instead of looping", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(findJsonBoundViolation(cyclic)).toMatchObject({ code: "too_deep" });
  });
});
