import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "@/lib/core/cursor";

describe("page cursors", () => {
  it("round-trip a position and are URL-safe", () => {
    const cursor = { at: 1_795_334_343_348, id: "call_0mwrjpp6c000RoDk-_MjNQ4" };
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it.each([
    ["not base64", "%%%"],
    ["base64 of non-JSON", btoa("hello")],
    ["a JSON object", btoa(JSON.stringify({ at: 1, id: "x" }))],
    ["a fractional time", btoa(JSON.stringify([1.5, "x"]))],
    ["a negative time", btoa(JSON.stringify([-1, "x"]))],
    ["an empty id", btoa(JSON.stringify([1, ""]))],
    ["a numeric id", btoa(JSON.stringify([1, 2]))],
    ["an over-long id", btoa(JSON.stringify([1, "x".repeat(201)]))],
  ])("refuse %s", (_label, text) => {
    expect(decodeCursor(text)).toBeNull();
  });
});
