"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useRunsQuery } from "@/lib/dashboard/queries/use-runs-query";
import { labelOfRunState, toneOfRunState } from "@/lib/dashboard/saga-labels";
import { type RunFilters as Filters, runFiltersFromSearch, runFiltersToSearch } from "@/lib/dashboard/run-filters";
import { ToneBadge } from "./DecisionBadge";
import { LoadMoreRow } from "./LoadMoreRow";
import { RunFilters } from "./RunFilters";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import "./explorer.css";
import { SortPicker } from "./SortPicker";
import { SortableHeader } from "./SortableHeader";
import { TableWrap } from "./TableWrap";
import { useUrlSort } from "@/lib/dashboard/use-url-sort";
import { RUN_SORT_COLUMNS, type RunSortColumn } from "@/lib/contract/calls";

const SORT_LABEL: Record<RunSortColumn, string> = {
  started: "start",
  run: "run id",
  lastActivity: "last activity",
  calls: "calls",
  agents: "agents",
  failed: "failed calls",
  dedupHits: "dedup hits",
};

/**
 * Recent runs with their counts, newest first by their first call unless sorted by a column: the
 * server sorts every matching run, and "load more" continues in the same order.
 */
export function RunsList() {
  const { projectId } = useProject();
  const pathname = usePathname();
  const search = useSearchParams();
  const limit = Number(search.get("limit")) || undefined;
  const filters = runFiltersFromSearch(search);
  const searchKey = runFiltersToSearch(filters).toString();
  const { sort, toggle, set } = useUrlSort(RUN_SORT_COLUMNS);
  const newestFirst = !sort || (sort.column === "started" && sort.dir === "desc");
  const runs = useRunsQuery(projectId, limit && limit <= 200 ? limit : undefined, filters, newestFirst ? undefined : `${sort!.column}:${sort!.dir}`);
  const rows = runs.data?.pages.flatMap((page) => page.runs) ?? [];
  const base = `/projects/${encodeURIComponent(projectId)}`;

  function apply(next: Filters) {
    const params = runFiltersToSearch(next);
    // A new search keeps the table's sort: both are the view the link saves.
    if (search.get("sort")) params.set("sort", search.get("sort")!);
    const query = params.toString();
    // Next.js folds history.pushState into its router: useSearchParams follows, no server round trip.
    window.history.pushState(null, "", query ? `${pathname}?${query}` : pathname);
  }

  return (
    <div className="stack">
      <h1>Runs</h1>
      <RunFilters key={searchKey} value={filters} onApply={apply} />
      {runs.error && !runs.data ? (
        <ErrorState error={runs.error} onRetry={() => runs.refetch()} />
      ) : runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : rows.length === 0 ? (
        searchKey ? (
          <EmptyState title="No runs match this search" />
        ) : (
          <EmptyState title="No runs yet">A run appears with the first call an agent makes under its runId.</EmptyState>
        )
      ) : (
        <>
          <p className="muted" role="status" style={{ margin: 0 }} data-testid="runs-count">
            {rows.length} run{rows.length === 1 ? "" : "s"} shown{runs.hasNextPage ? ", more below" : ""} ·{" "}
            {newestFirst ? "newest first" : `all matching runs sorted by ${SORT_LABEL[sort!.column as RunSortColumn]}, ${sort!.dir === "asc" ? "ascending" : "descending"}`}
          </p>
          <SortPicker subject="runs" columns={RUN_SORT_COLUMNS.map((column) => ({ column, label: SORT_LABEL[column] }))} sort={sort} defaultLabel="Newest first" onChange={set} />
          <TableWrap label="Runs">
            <table className="data stacked" data-testid="runs-table">
              <thead>
                <tr>
                  <SortableHeader column="run" label="Run" sort={sort} onSort={toggle} />
                  <SortableHeader column="started" label="Started" sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="lastActivity" label="Last activity" sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="calls" label="Calls" sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="agents" label="Agents" sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="failed" label="Outcomes" title="Sorts by failed calls" sort={sort} onSort={toggle} firstDir="desc" />
                  <th scope="col" title="Kept by the saga runner, not the ledger: not sortable">
                    <span className="sort-header static">Saga</span>
                  </th>
                  <SortableHeader column="dedupHits" label="Dedup hits" sort={sort} onSort={toggle} firstDir="desc" />
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.runId} data-testid="run-row">
                    <td data-label="Run">
                      <Link href={`${base}/runs/${encodeURIComponent(r.runId)}`}>{r.runId}</Link>
                    </td>
                    <td data-label="Started" className="nowrap">
                      <time dateTime={r.startedAt}>{formatInstant(r.startedAt, "seconds")}</time>
                    </td>
                    <td data-label="Last activity" className="nowrap">
                      <time dateTime={r.lastActivityAt}>{formatInstant(r.lastActivityAt, "seconds")}</time>
                    </td>
                    <td data-label="Calls">
                      {r.calls} <span className="muted">({r.tools} tool{r.tools === 1 ? "" : "s"})</span>
                    </td>
                    <td data-label="Agents">{r.agents}</td>
                    <td data-label="Outcomes">
                      <span className="row" style={{ gap: 4, display: "inline-flex" }}>
                        {r.succeeded ? <ToneBadge tone="ok">{r.succeeded} succeeded</ToneBadge> : null}
                        {r.failed ? <ToneBadge tone="danger">{r.failed} failed</ToneBadge> : null}
                        {r.inProgress ? <ToneBadge tone="exec">{r.inProgress} running</ToneBadge> : null}
                        {r.blocked ? <ToneBadge tone="danger">{r.blocked} blocked</ToneBadge> : null}
                      </span>
                    </td>
                    <td data-label="Saga" data-testid="run-saga-state">
                      {r.sagaState === "none" ? (
                        <span className="muted" title="No step of this run registered an undo">—</span>
                      ) : r.sagaState === "running" ? (
                        <span className="muted" title="Steps registered undos; they run if the run is aborted">not aborted</span>
                      ) : <ToneBadge tone={toneOfRunState(r.sagaState)}>{labelOfRunState(r.sagaState)}</ToneBadge>}
                    </td>
                    <td data-label="Dedup hits">
                      {r.dedupHits} <span className="muted">of {r.begins} begins</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <LoadMoreRow query={runs} />
        </>
      )}
    </div>
  );
}
