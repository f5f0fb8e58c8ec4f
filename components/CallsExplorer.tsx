"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { CALL_SORT_COLUMNS, type CallSortColumn } from "@/lib/contract/calls";
import { type CallFilters as Filters, activeFilterCount, filtersFromSearch, filtersToSearch } from "@/lib/dashboard/call-filters";
import { projectApi } from "@/lib/dashboard/fetch-json";
import { apiSort, useCallsQuery, useNewCallsCount } from "@/lib/dashboard/queries/use-calls-query";
import type { SortState } from "@/lib/dashboard/table-sort";
import { useUrlSort } from "@/lib/dashboard/use-url-sort";
import { CallFilters } from "./CallFilters";
import { CallsTable } from "./CallsTable";
import { CopyViewLink } from "./CopyViewLink";
import { DecisionsBehind } from "./DecisionsBehind";
import { LoadMoreRow } from "./LoadMoreRow";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import "./explorer.css";
import { SortPicker } from "./SortPicker";

const SORT_LABEL: Record<CallSortColumn, string> = {
  firstSeen: "first seen",
  tool: "tool",
  status: "status",
  run: "run",
  agent: "agent (calls without one last)",
  attempts: "attempts",
  key: "key",
};

/** The list's own order: what Follow live follows. */
const isNewestFirst = (sort: SortState | null) => !sort || (sort.column === "firstSeen" && sort.dir === "desc");

/** The caption's account of the order: the server sorts every matching call, not only those loaded. */
function orderCaption(sort: SortState | null): string {
  if (isNewestFirst(sort)) return "newest first";
  const label = SORT_LABEL[sort!.column as CallSortColumn];
  return `all matching calls sorted by ${label}, ${sort!.dir === "asc" ? "ascending" : "descending"}`;
}

/**
 * The calls page: filters, search and sort kept in the URL (the view is a link), newest first
 * unless sorted by a column, "load more" by cursor in the same order, open by id. The server sorts
 * the whole list, so the first row under a sort is the extreme of every matching call. Following
 * (newest first only: under another sort a new call's place is anywhere in the list), the list
 * refetches and new calls appear at the top; paused or sorted, it stays still and counts the calls
 * that arrived meanwhile.
 */
export function CallsExplorer() {
  const { projectId } = useProject();
  const pathname = usePathname();
  const search = useSearchParams();
  const filters = filtersFromSearch(search);
  const searchKey = filtersToSearch(filters).toString();
  const [following, setFollowing] = useState(false);
  const { sort, toggle, set, clear } = useUrlSort(CALL_SORT_COLUMNS);
  const newestFirst = isNewestFirst(sort);
  const live = following && newestFirst;
  const calls = useCallsQuery(projectId, filters, live, newestFirst ? undefined : apiSort(sort));
  const rows = calls.data?.pages.flatMap((page) => page.calls) ?? [];
  const tools = [...new Set(rows.map((c) => c.tool))].sort();
  const newestAt = rows.reduce<string | null>((newest, c) => (newest === null || Date.parse(c.createdAt) > Date.parse(newest) ? c.createdAt : newest), null);
  const fresh = useNewCallsCount(projectId, filters, { newestAt, ids: new Set(rows.map((c) => c.callId)) }, !live && !calls.isPending);

  function apply(next: Filters) {
    const params = filtersToSearch(next);
    // New filters keep the table's sort: both are the view a link saves.
    if (search.get("sort")) params.set("sort", search.get("sort")!);
    const query = params.toString();
    // Next.js folds history.pushState into its router: useSearchParams follows, no server round trip.
    window.history.pushState(null, "", query ? `${pathname}?${query}` : pathname);
  }

  return (
    <div className="stack">
      <div className="row spread">
        <h1 style={{ margin: 0 }}>Calls</h1>
        <div className="row">
          <OpenById projectId={projectId} />
          <CopyViewLink />
          <a href={`${projectApi(projectId).operator}/calls/export${searchKey ? `?${searchKey}` : ""}`} download className="button-link" data-testid="calls-export">
            Export CSV
          </a>
        </div>
      </div>
      <CallFilters key={searchKey} value={filters} onApply={apply} tools={tools} />
      <DecisionsBehind projectId={projectId} filters={filters} />
      <div className="row" data-testid="follow-bar">
        <button
          type="button"
          aria-pressed={live}
          disabled={!newestFirst}
          data-testid="follow-toggle"
          title={newestFirst ? undefined : "Follow live lists the newest calls first: back to newest first to follow"}
          onClick={() => setFollowing((f) => !f)}
        >
          {live ? "Pause" : "Follow live"}
        </button>
        <span className="muted" data-testid="follow-state">
          {!newestFirst
            ? "Sorted: the list stays as it is (Follow live works newest first)."
            : live
              ? "Following: new calls appear at the top as they arrive."
              : "Paused: the list stays as it is."}
        </span>
        {!newestFirst ? (
          <button type="button" data-testid="newest-first" onClick={clear}>
            Newest first
          </button>
        ) : null}
        {!live && fresh > 0 ? (
          <button type="button" className="badge new-calls" data-testid="new-calls" onClick={() => calls.refetch()}>
            {fresh} new · show
          </button>
        ) : null}
      </div>
      {calls.error && !calls.data ? (
        <ErrorState error={calls.error} onRetry={() => calls.refetch()} />
      ) : calls.isPending ? (
        <Loading label="Loading calls…" />
      ) : rows.length === 0 ? (
        activeFilterCount(filters) > 0 ? (
          <EmptyState title="No calls match these filters">
            Widen the time range or{" "}
            <button type="button" onClick={() => apply({ limit: filters.limit })}>
              clear the filters
            </button>
          </EmptyState>
        ) : (
          <EmptyState title="No calls yet">Calls appear here as soon as an agent asks the gate before running a tool.</EmptyState>
        )
      ) : (
        <>
          <p className="muted" role="status" style={{ margin: 0 }} data-testid="calls-count">
            {rows.length} call{rows.length === 1 ? "" : "s"} shown{calls.hasNextPage ? ", more below" : ""} ·{" "}
            {orderCaption(sort)}
            {calls.isFetching && !calls.isFetchingNextPage && !live ? " · refreshing…" : ""}
          </p>
          <SortPicker subject="calls" columns={CALL_SORT_COLUMNS.map((column) => ({ column, label: SORT_LABEL[column] }))} sort={sort} defaultLabel="Newest first" onChange={set} />
          <CallsTable projectId={projectId} calls={rows} sort={sort} onSort={toggle} />
          <LoadMoreRow query={calls} />
        </>
      )}
    </div>
  );
}

/** Open a call by id (from a log line, an agent trace or a resend request). */
function OpenById({ projectId }: { projectId: string }) {
  const router = useRouter();
  const [id, setId] = useState("");
  function submit(event: FormEvent) {
    event.preventDefault();
    if (id.trim()) router.push(`/projects/${encodeURIComponent(projectId)}/calls/${encodeURIComponent(id.trim())}`);
  }
  return (
    <form onSubmit={submit} className="row" style={{ gap: 6 }}>
      <label htmlFor="call-id" className="muted">
        Call id
      </label>
      <input id="call-id" value={id} onChange={(e) => setId(e.target.value)} placeholder="call_…" style={{ width: 180 }} />
      <button type="submit">Open</button>
    </form>
  );
}
