"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { type CallFilters as Filters, activeFilterCount, filtersFromSearch, filtersToSearch } from "@/lib/dashboard/call-filters";
import { projectApi } from "@/lib/dashboard/fetch-json";
import { useCallsQuery } from "@/lib/dashboard/queries/use-calls-query";
import { CallFilters } from "./CallFilters";
import { CallsTable } from "./CallsTable";
import { DecisionsBehind } from "./DecisionsBehind";
import { LoadMoreRow } from "./LoadMoreRow";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import "./explorer.css";

/** The calls page: filters kept in the URL, the newest calls first, "load more" by cursor, open by id. */
export function CallsExplorer() {
  const { projectId } = useProject();
  const pathname = usePathname();
  const search = useSearchParams();
  const filters = filtersFromSearch(search);
  const searchKey = filtersToSearch(filters).toString();
  const calls = useCallsQuery(projectId, filters);
  const rows = calls.data?.pages.flatMap((page) => page.calls) ?? [];
  const tools = [...new Set(rows.map((c) => c.tool))].sort();

  function apply(next: Filters) {
    const query = filtersToSearch(next).toString();
    // Next.js folds history.pushState into its router: useSearchParams follows, no server round trip.
    window.history.pushState(null, "", query ? `${pathname}?${query}` : pathname);
  }

  return (
    <div className="stack">
      <div className="row spread">
        <h1 style={{ margin: 0 }}>Calls</h1>
        <div className="row">
          <OpenById projectId={projectId} />
          <a href={`${projectApi(projectId).operator}/calls/export${searchKey ? `?${searchKey}` : ""}`} download className="button-link" data-testid="calls-export">
            Export CSV
          </a>
        </div>
      </div>
      <CallFilters key={searchKey} value={filters} onApply={apply} tools={tools} />
      <DecisionsBehind projectId={projectId} filters={filters} />
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
            {rows.length} call{rows.length === 1 ? "" : "s"} shown{calls.hasNextPage ? ", more below" : ""} · newest first
            {calls.isFetching && !calls.isFetchingNextPage ? " · refreshing…" : ""}
          </p>
          <CallsTable projectId={projectId} calls={rows} />
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
