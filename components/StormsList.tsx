"use client";

import Link from "next/link";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useStormsQuery } from "@/lib/dashboard/queries/use-storms-query";
import { TableWrap } from "./TableWrap";
import { FIGURE_DEFINITIONS } from "@/lib/dashboard/figure-definitions";
import { formatCount } from "@/lib/dashboard/format-count";

const int = new Intl.NumberFormat("en-US");

/** Retry-storm incidents, latest first (any member); each links to its detail. */
export function StormsList() {
  const { projectId } = useProject();
  const storms = useStormsQuery(projectId);
  const base = `/projects/${encodeURIComponent(projectId)}/storms/`;
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
        <TableWrap label="Storms">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Peak / min</th>
                <th scope="col" title={FIGURE_DEFINITIONS.stormHits}>
                  Dedup hits
                </th>
                <th scope="col">Baseline → threshold</th>
                <th scope="col">Runs</th>
                <th scope="col">Heaviest run</th>
              </tr>
            </thead>
            <tbody>
              {storms.data.storms.map((s) => (
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
      )}
    </div>
  );
}
