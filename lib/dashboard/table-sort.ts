/**
 * A table's sort as it lives in the URL: `?sort=tool` (ascending) or `?sort=-tool` (descending),
 * one column per table (each page has one sortable table). Parsed leniently: an unknown column is
 * no sort, not an error page. The calls list asks the server for its sort (the API's
 * `sort=<column>:<asc|desc>`, over every matching call); lists that load every row (tools, storms)
 * and the runs list sort the rows they hold on the client (the runs page says so).
 */
export type SortDir = "asc" | "desc";
export interface SortState {
  column: string;
  dir: SortDir;
}

export type SortValue = string | number | null | undefined;
export type SortAccessors<T> = Record<string, (row: T) => SortValue>;

export function parseSort(value: string | null, columns: readonly string[]): SortState | null {
  if (!value) return null;
  const dir: SortDir = value.startsWith("-") ? "desc" : "asc";
  const column = value.replace(/^-/, "");
  return columns.includes(column) ? { column, dir } : null;
}

export function sortParam(state: SortState | null): string | null {
  return state ? `${state.dir === "desc" ? "-" : ""}${state.column}` : null;
}

/** A click on a header: that column in its natural first direction, then the other one. */
export function nextSort(current: SortState | null, column: string, firstDir: SortDir = "asc"): SortState {
  if (current?.column !== column) return { column, dir: firstDir };
  return { column, dir: current.dir === "asc" ? "desc" : "asc" };
}

export function ariaSort(current: SortState | null, column: string): "ascending" | "descending" | "none" {
  if (current?.column !== column) return "none";
  return current.dir === "asc" ? "ascending" : "descending";
}

/** Numbers by value, text by a locale-aware compare with numbers inside it ("run 2" before "run 10"); blanks last either way. */
function compare(a: SortValue, b: SortValue): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), "en", { numeric: true, sensitivity: "base" });
}

/** A stable sort of the rows (ties keep the list's own order); rows without a value go last. */
export function sortRows<T>(rows: readonly T[], state: SortState | null, accessors: SortAccessors<T>): T[] {
  const value = state ? accessors[state.column] : undefined;
  if (!state || !value) return [...rows];
  const sign = state.dir === "asc" ? 1 : -1;
  const blank = (v: SortValue) => v === null || v === undefined || v === "";
  return rows
    .map((row, index) => ({ row, index, key: value(row) }))
    .sort((x, y) => {
      if (blank(x.key) || blank(y.key)) return blank(x.key) === blank(y.key) ? x.index - y.index : blank(x.key) ? 1 : -1;
      return sign * compare(x.key, y.key) || x.index - y.index;
    })
    .map((entry) => entry.row);
}
