"use client";

import type { SortDir, SortState } from "@/lib/dashboard/table-sort";
import { ariaSort } from "@/lib/dashboard/table-sort";

interface Props {
  column: string;
  label: string;
  sort: SortState | null;
  onSort: (column: string, firstDir?: SortDir) => void;
  /** Counts and times read best largest or newest first. */
  firstDir?: SortDir;
  title?: string;
}

/** A column header that sorts its table: a button inside the th (keyboard and screen readers), aria-sort on the th. */
export function SortableHeader({ column, label, sort, onSort, firstDir = "asc", title }: Props) {
  const state = ariaSort(sort, column);
  return (
    <th scope="col" aria-sort={state} title={title}>
      <button type="button" className="sort-header" data-testid={`sort-${column}`} onClick={() => onSort(column, firstDir)}>
        {label}
        <span aria-hidden="true" className="sort-mark">
          {state === "ascending" ? " ▲" : state === "descending" ? " ▼" : " ↕"}
        </span>
      </button>
    </th>
  );
}
