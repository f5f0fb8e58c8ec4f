"use client";

import { useEffect, useMemo, useState } from "react";
import { DecisionsChart } from "./DecisionsChart";
import { KpiGrid } from "./KpiGrid";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { StormBanner } from "./StormBanner";
import { prepareKpis } from "@/lib/dashboard/prepare-kpis";
import { hasTraffic, prepareDecisionSeries } from "@/lib/dashboard/prepare-timeseries";
import { RANGES, type RangeId, isRangeId, rangeBounds } from "@/lib/dashboard/range";
import { useDedupQuery } from "@/lib/dashboard/queries/use-dedup-query";
import { useResendRequestsQuery } from "@/lib/dashboard/queries/use-resend-requests-query";
import { useStormsQuery } from "@/lib/dashboard/queries/use-storms-query";
import { useTimeseriesQuery } from "@/lib/dashboard/queries/use-timeseries-query";

export function OverviewView() {
  const { projectId, can } = useProject();
  const stats = can("admin"); // the stats and storms API need the admin role for now
  const [range, setRange] = useState<RangeId>("1h");
  const [now, setNow] = useState(() => Date.now());
  // Move the window forward once a minute; the query keys change, the previous data stays shown.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const { from, to, bucket } = rangeBounds(range, now);
  const dedup = useDedupQuery(projectId, from, to, stats);
  const series = useTimeseriesQuery(projectId, from, to, bucket, stats);
  const storms = useStormsQuery(projectId, "open", stats);
  const pending = useResendRequestsQuery(projectId, "pending");
  const points = useMemo(() => (series.data ? prepareDecisionSeries(series.data) : []), [series.data]);
  const kpis = prepareKpis({ dedup: dedup.data, pendingApprovals: pending.data?.requests.length, openStorms: storms.data?.storms.length });

  return (
    <div className="stack">
      <div className="row spread">
        <h1>Overview</h1>
        <label className="row">
          <span>Range</span>
          <select
            value={range}
            onChange={(e) => {
              if (isRangeId(e.target.value)) setRange(e.target.value);
              setNow(Date.now());
            }}
          >
            {Object.entries(RANGES).map(([id, r]) => (
              <option key={id} value={id}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {storms.data ? <StormBanner storms={storms.data.storms} href={`/projects/${encodeURIComponent(projectId)}/storms`} /> : null}
      <KpiGrid kpis={kpis} />
      {dedup.error ? <ErrorState error={dedup.error} onRetry={() => dedup.refetch()} /> : null}
      <section aria-labelledby="chart-title" className="card">
        <h2 id="chart-title" style={{ marginTop: 0, fontSize: "1.1em" }}>
          Executions vs dedup hits
        </h2>
        {!stats ? (
          <EmptyState title="Charts need the admin role">The statistics API is open to project admins only for now.</EmptyState>
        ) : series.error ? (
          <ErrorState error={series.error} onRetry={() => series.refetch()} />
        ) : series.isPending ? (
          <Loading label="Loading the chart…" />
        ) : !hasTraffic(points) ? (
          <EmptyState title="No decisions in this range">Agents have not called the gate in the {RANGES[range].label.toLowerCase()}.</EmptyState>
        ) : (
          <DecisionsChart points={points} bucket={bucket} />
        )}
      </section>
    </div>
  );
}
