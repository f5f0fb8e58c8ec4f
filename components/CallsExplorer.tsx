"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import type { CallSummary } from "@/lib/contract/calls";
import { type CallFilters as Filters, activeFilterCount, filtersFromSearch, filtersToSearch } from "@/lib/dashboard/call-filters";
import { projectApi } from "@/lib/dashboard/fetch-json";
import { useCallsQuery, useNewCallsCount } from "@/lib/dashboard/queries/use-calls-query";
import { type SortAccessors, sortRows } from "@/lib/dashboard/table-sort";
import { useUrlSort } from "@/lib/dashboard/use-url-sort";
import { CallFilters } from "./CallFilters";
import { CallsTable } from "./CallsTable";
import { CopyViewLink } from "./CopyViewLink";
import { DecisionsBehind } from "./DecisionsBehind";
import { LoadMoreRow } from "./LoadMoreRow";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import "./explorer.css";

const CALL_SORT: SortAccessors<CallSummary> = {
  firstSeen: (c) => Date.parse(c.createdAt),
  tool: (c) => c.tool,
  status: (c) => c.status,
  lastDecision: (c) => c.lastDecision?.decision,
  run: (c) => c.runId,
  agent: (c) => c.agentId,
  attempts: (c) => c.attempts,
  key: (c) => c.key,
};

/**
 * The calls page: filters, search and sort kept in the URL (the view is a link), the newest calls
 * first, "load more" by cursor, open by id. Following, the list refetches and new calls appear at
 * the top; paused, it stays still and counts the calls that arrived meanwhile.
 */
export function CallsExplorer() {
  const { projectId } = useProject();
  const pathname = usePathname();
  const search = useSearchParams();
  const filters = filtersFromSearch(search);
  const searchKey = filtersToSearch(filters).toString();
  const [following, setFollowing] = useState(false);
  const calls = useCallsQuery(projectId, filters, following);
  const loaded = calls.data?.pages.flatMap((page) => page.calls) ?? [];
  const { sort, toggle } = useUrlSort(Object.keys(CALL_SORT));
  const rows = sortRows(loaded, sort, CALL_SORT);
  const tools = [...new Set(loaded.map((c) => c.tool))].sort();
  const fresh = useNewCallsCount(projectId, filters, { newestAt: loaded[0]?.createdAt ?? null, ids: new Set(loaded.map((c) => c.callId)) }, !following && !calls.isPending);

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
        <button type="button" aria-pressed={following} data-testid="follow-toggle" onClick={() => setFollowing((f) => !f)}>
          {following ? "Pause" : "Follow live"}
        </button>
        <span className="muted" data-testid="follow-state">
          {following ? "Following: new calls appear at the top as they arrive." : "Paused: the list stays as it is."}
        </span>
        {!following && fresh > 0 ? (
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
            {sort ? "sorted as chosen (the calls loaded; more load newest first)" : "newest first"}
            {calls.isFetching && !calls.isFetchingNextPage && !following ? " · refreshing…" : ""}
          </p>
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
