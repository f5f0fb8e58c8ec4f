"use client";

import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { useStormsQuery } from "@/lib/dashboard/queries/use-storms-query";

export function StormsList() {
  const { projectId, can } = useProject();
  const storms = useStormsQuery(projectId, undefined, can("admin"));
  return (
    <div className="stack">
      <h1>Retry storms</h1>
      {!can("admin") ? (
        <EmptyState title="Storms need the admin role">The storms API is open to project admins only for now.</EmptyState>
      ) : storms.error ? (
        <ErrorState error={storms.error} onRetry={() => storms.refetch()} />
      ) : storms.isPending ? (
        <Loading />
      ) : storms.data.storms.length === 0 ? (
        <EmptyState title="No storms">A storm opens when a tool&apos;s dedup hits per window jump far above its baseline.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Peak / min</th>
                <th scope="col">Total hits</th>
                <th scope="col">Baseline → threshold</th>
                <th scope="col">Runs</th>
                <th scope="col">Heaviest run</th>
              </tr>
            </thead>
            <tbody>
              {storms.data.storms.map((s) => (
                <tr key={s.id} data-testid="storm-row">
                  <td><code>{s.tool}</code></td>
                  <td><span className={`badge ${s.status}`}>{s.status}</span></td>
                  <td>{s.startedAt.slice(0, 16).replace("T", " ")}</td>
                  <td>{s.peakPerMinute.toFixed(1)}</td>
                  <td>{s.totalHits}</td>
                  <td>{s.baseline.toFixed(1)} → {s.threshold.toFixed(1)}</td>
                  <td>{s.runsInvolved}</td>
                  <td>{s.topRuns[0] ? `${s.topRuns[0].runId} (${s.topRuns[0].hits})` : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
