"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { type SortDir, type SortState, nextSort, parseSort, sortParam } from "./table-sort";

/**
 * The page's table sort, kept in the URL's `sort` beside its other parameters (filters, search):
 * a sorted view is a link. Next.js folds history.pushState into its router, so the page follows
 * without a server round trip.
 */
export function useUrlSort(columns: readonly string[]): {
  sort: SortState | null;
  toggle: (column: string, firstDir?: SortDir) => void;
  set: (next: SortState | null) => void;
  clear: () => void;
} {
  const pathname = usePathname();
  const search = useSearchParams();
  const sort = parseSort(search.get("sort"), columns);
  function toggle(column: string, firstDir: SortDir = "asc") {
    const params = new URLSearchParams(search.toString());
    params.set("sort", sortParam(nextSort(sort, column, firstDir))!);
    window.history.pushState(null, "", `${pathname}?${params}`);
  }
  /** A sort chosen outright (the phone's sort picker), or none. */
  function set(next: SortState | null) {
    if (next === null) return clear();
    const params = new URLSearchParams(search.toString());
    params.set("sort", sortParam(next)!);
    window.history.pushState(null, "", `${pathname}?${params}`);
  }
  /** Back to the list's own order (no `sort` in the URL). */
  function clear() {
    const params = new URLSearchParams(search.toString());
    params.delete("sort");
    const query = params.toString();
    window.history.pushState(null, "", query ? `${pathname}?${query}` : pathname);
  }
  return { sort, toggle, set, clear };
}
