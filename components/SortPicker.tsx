"use client";

import { useId } from "react";
import type { SortState } from "@/lib/dashboard/table-sort";
import { ClientSelect } from "./ClientSelect";

interface Props {
  /** What the list is about, for the control's name ("calls", "runs", "tools"). */
  subject: string;
  /** The sortable columns in the headers' order, with their words. */
  columns: readonly { column: string; label: string }[];
  sort: SortState | null;
  /** The list's own order, when no column is chosen ("newest first", "by name"). */
  defaultLabel: string;
  onChange: (next: SortState | null) => void;
}

/**
 * On a phone the table becomes cards and its headers, which sort on a click, are hidden: the same
 * sort as one control above the cards (explorer.css shows it at phone width only). It writes the
 * same `sort` the headers do, so a link keeps it either way.
 */
export function SortPicker({ subject, columns, sort, defaultLabel, onChange }: Props) {
  const value = sort ? `${sort.column}:${sort.dir}` : "";
  const id = useId();
  // The label names the select without holding it: a label around a select carries every option's
  // words as its text, so "Agent" found the runs' sort control beside the Agent filter.
  return (
    <div className="sort-picker" data-testid="sort-picker">
      <label htmlFor={id}>Sort {subject}</label>
      <ClientSelect
        id={id}
        value={value}
        onChange={(event) => {
          const [column, dir] = event.target.value.split(":");
          onChange(column ? { column, dir: dir === "desc" ? "desc" : "asc" } : null);
        }}
      >
        <option value="">{defaultLabel}</option>
        {columns.flatMap(({ column, label }) => [
          <option key={`${column}:asc`} value={`${column}:asc`}>
            {label}, ascending
          </option>,
          <option key={`${column}:desc`} value={`${column}:desc`}>
            {label}, descending
          </option>,
        ])}
      </ClientSelect>
    </div>
  );
}
