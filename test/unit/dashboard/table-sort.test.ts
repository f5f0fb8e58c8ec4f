import { describe, expect, it } from "vitest";
import { ariaSort, nextSort, parseSort, sortParam, sortRows } from "@/lib/dashboard/table-sort";

const rows = [
  { id: "a", tool: "run 10", calls: 3, agent: null },
  { id: "b", tool: "Run 2", calls: 30, agent: "x" },
  { id: "c", tool: "alpha", calls: 3, agent: "b" },
];
const by = { tool: (r: (typeof rows)[number]) => r.tool, calls: (r: (typeof rows)[number]) => r.calls, agent: (r: (typeof rows)[number]) => r.agent };

describe("table sort", () => {
  it("reads `col` and `-col` from the URL, only for known columns, and writes them back", () => {
    expect(parseSort("tool", ["tool"])).toEqual({ column: "tool", dir: "asc" });
    expect(parseSort("-calls", ["calls"])).toEqual({ column: "calls", dir: "desc" });
    expect(parseSort("-nope", ["calls"])).toBeNull();
    expect(parseSort(null, ["calls"])).toBeNull();
    expect(sortParam({ column: "calls", dir: "desc" })).toBe("-calls");
  });

  it("a click sorts a new column in its first direction, a second click reverses; aria-sort follows", () => {
    const first = nextSort(null, "calls", "desc");
    expect(first).toEqual({ column: "calls", dir: "desc" });
    expect(nextSort(first, "calls")).toEqual({ column: "calls", dir: "asc" });
    expect(nextSort(first, "tool")).toEqual({ column: "tool", dir: "asc" });
    expect([ariaSort(first, "calls"), ariaSort(first, "tool"), ariaSort({ column: "calls", dir: "asc" }, "calls")]).toEqual(["descending", "none", "ascending"]);
  });

  it("sorts numbers by value, text with numbers inside it and without case, stable on ties, blanks last either way", () => {
    expect(sortRows(rows, { column: "tool", dir: "asc" }, by).map((r) => r.id)).toEqual(["c", "b", "a"]);
    expect(sortRows(rows, { column: "calls", dir: "desc" }, by).map((r) => r.id)).toEqual(["b", "a", "c"]);
    expect(sortRows(rows, { column: "calls", dir: "asc" }, by).map((r) => r.id)).toEqual(["a", "c", "b"]);
    expect(sortRows(rows, { column: "agent", dir: "asc" }, by).map((r) => r.id)).toEqual(["c", "b", "a"]);
    expect(sortRows(rows, { column: "agent", dir: "desc" }, by).map((r) => r.id)).toEqual(["b", "c", "a"]);
    expect(sortRows(rows, null, by)).toEqual(rows);
  });
});
