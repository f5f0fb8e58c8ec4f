import { describe, expect, it } from "vitest";
import { decodeCursor, decodeSortCursor, encodeCursor, encodeSortCursor } from "@/lib/core/cursor";

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

describe("sorted lists' cursors", () => {
  it.each([
    ["a text value", { sort: "tool:asc", value: "créer_ticket", id: "call_1" }],
    ["a number", { sort: "attempts:desc", value: 3, id: "call_2" }],
    ["a blank", { sort: "agent:asc", value: null, id: "call_3" }],
  ])("round-trip %s, URL-safe, and are never taken for a (time, id) cursor", (_label, cursor) => {
    const text = encodeSortCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeSortCursor(text)).toEqual(cursor);
    expect(decodeCursor(text)).toBeNull();
  });

  it.each([
    ["a (time, id) cursor", encodeCursor({ at: 1, id: "x" })],
    ["no tag", btoa(JSON.stringify(["x", "tool:asc", "v", "id"]))],
    ["a fractional value", btoa(JSON.stringify(["s", "attempts:asc", 1.5, "id"]))],
    ["an object value", btoa(JSON.stringify(["s", "tool:asc", { a: 1 }, "id"]))],
    ["an empty sort", btoa(JSON.stringify(["s", "", "v", "id"]))],
    ["an over-long value", btoa(JSON.stringify(["s", "key:asc", "k".repeat(1_001), "id"]))],
    ["not UTF-8", btoa("\xff\xfe")],
  ])("refuse %s", (_label, text) => {
    expect(decodeSortCursor(text)).toBeNull();
  });
});
