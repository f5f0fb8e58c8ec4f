"use client";

import Link from "next/link";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { formatInstant } from "@/lib/dashboard/format-time";
import { STORMS_LIMIT, useStormsQuery } from "@/lib/dashboard/queries/use-storms-query";
import { TableWrap } from "./TableWrap";
import type { Storm } from "@/lib/contract/storms";
import { type SortAccessors, sortRows } from "@/lib/dashboard/table-sort";
import { useUrlSort } from "@/lib/dashboard/use-url-sort";
import { SortableHeader } from "./SortableHeader";
import { FIGURE_DEFINITIONS } from "@/lib/dashboard/figure-definitions";
import { formatCount } from "@/lib/dashboard/format-count";

const STORM_SORT: SortAccessors<Storm> = {
  tool: (s) => s.tool,
  status: (s) => s.status,
  started: (s) => Date.parse(s.startedAt),
  peak: (s) => s.peakPerMinute,
  hits: (s) => s.totalHits,
  baseline: (s) => s.baseline,
  runs: (s) => s.runsInvolved,
};

const int = new Intl.NumberFormat("en-US");

/** Retry-storm incidents, latest first (any member); each links to its detail. */
export function StormsList() {
  const { projectId } = useProject();
  const storms = useStormsQuery(projectId);
  const base = `/projects/${encodeURIComponent(projectId)}/storms/`;
  const { sort, toggle } = useUrlSort(Object.keys(STORM_SORT));
  return (
    <div className="stack">
      <h1>Retry storms</h1>
      {storms.error ? (
        <ErrorState error={storms.error} onRetry={() => storms.refetch()} />
      ) : storms.isPending ? (
        <Loading />
      ) : storms.data.storms.length === 0 ? (
        <EmptyState title="No storms">A storm opens when a tool&apos;s dedup hits per window jump far above its baseline.</EmptyState>
      ) : (
        <>
          {storms.data.storms.length >= STORMS_LIMIT ? (
            <p className="muted" role="status" style={{ margin: 0 }} data-testid="storms-capped">
              The {STORMS_LIMIT} latest storms, sorted in this page; older storms are not listed.
            </p>
          ) : null}
          <TableWrap label="Storms">
            <table className="data">
              <thead>
                <tr>
                  <SortableHeader column="tool" label="Tool" sort={sort} onSort={toggle} />
                  <SortableHeader column="status" label="Status" sort={sort} onSort={toggle} />
                  <SortableHeader column="started" label="Started" sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="peak" label="Peak / min" sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="hits" label="Dedup hits" title={FIGURE_DEFINITIONS.stormHits} sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="baseline" label="Baseline → threshold" sort={sort} onSort={toggle} firstDir="desc" />
                  <SortableHeader column="runs" label="Runs" sort={sort} onSort={toggle} firstDir="desc" />
                  <th scope="col">Heaviest run</th>
                </tr>
              </thead>
              <tbody>
                {sortRows(storms.data.storms, sort, STORM_SORT).map((s) => (
                  <tr key={s.id} data-testid="storm-row">
                    <td>
                      <Link href={base + encodeURIComponent(s.id)} aria-label={`Storm on ${s.tool} from ${formatInstant(s.startedAt)}`}>
                        <code>{s.tool}</code>
                      </Link>
                    </td>
                    <td>
                      <span className={`badge ${s.status}`}>{s.status}</span>
                    </td>
                    <td>{formatInstant(s.startedAt)}</td>
                    <td>{int.format(Math.round(s.peakPerMinute))}</td>
                    <td>{int.format(s.totalHits)}</td>
                    <td>
                      {formatCount(s.baseline)} → {formatCount(s.threshold)}
                    </td>
                    <td>{s.runsInvolved}</td>
                    <td>{s.topRuns[0] ? `${s.topRuns[0].runId} (${s.topRuns[0].hits})` : "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </div>
  );
}
