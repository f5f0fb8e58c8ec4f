"use client";

import { useEffect, useMemo, useState } from "react";
import { DecisionsChart } from "./DecisionsChart";
import { KpiGrid } from "./KpiGrid";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { StormBanner } from "./StormBanner";
import { ToolDedupTable } from "./ToolDedupTable";
import { prepareKpis } from "@/lib/dashboard/prepare-kpis";
import { hasTraffic, prepareDecisionSeries } from "@/lib/dashboard/prepare-timeseries";
import { prepareToolSparklines } from "@/lib/dashboard/prepare-tool-sparklines";
import { RANGES, type RangeId, isRangeId, rangeBounds } from "@/lib/dashboard/range";
import { useDedupQuery } from "@/lib/dashboard/queries/use-dedup-query";
import { useResendRequestsQuery } from "@/lib/dashboard/queries/use-resend-requests-query";
import { useStormsQuery } from "@/lib/dashboard/queries/use-storms-query";
import { useTimeseriesQuery } from "@/lib/dashboard/queries/use-timeseries-query";

export function OverviewView() {
  const { projectId } = useProject();
  const [range, setRange] = useState<RangeId>("1h");
  const [now, setNow] = useState(() => Date.now());
  // Move the window forward once a minute; the query keys change, the previous data stays shown.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const { from, to, bucket } = rangeBounds(range, now);
  const dedup = useDedupQuery(projectId, from, to);
  const series = useTimeseriesQuery(projectId, from, to, bucket);
  const storms = useStormsQuery(projectId, "open");
  const pending = useResendRequestsQuery(projectId, "pending");
  const points = useMemo(() => (series.data ? prepareDecisionSeries(series.data) : []), [series.data]);
  const tools = useMemo(() => (series.data ? prepareToolSparklines(series.data) : []), [series.data]);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const callsHref = (tool: string) => `${base}/calls?${new URLSearchParams({ tool, from, to })}`;
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
      {storms.data ? <StormBanner storms={storms.data.storms} href={`${base}/storms`} /> : null}
      <KpiGrid kpis={kpis} />
      {dedup.error ? <ErrorState error={dedup.error} onRetry={() => dedup.refetch()} /> : null}
      <section aria-labelledby="chart-title" className="card">
        <h2 id="chart-title" style={{ marginTop: 0, fontSize: "1.1em" }}>
          Executions vs dedup hits
        </h2>
        {series.error ? (
          <ErrorState error={series.error} onRetry={() => series.refetch()} />
        ) : series.isPending ? (
          <Loading label="Loading the chart…" />
        ) : !hasTraffic(points) ? (
          <EmptyState title="No decisions in this range">Agents have not called the gate in the {RANGES[range].label.toLowerCase()}.</EmptyState>
        ) : (
          <DecisionsChart points={points} bucket={bucket} />
        )}
      </section>
      <section aria-labelledby="tools-title" className="card">
        <h2 id="tools-title" style={{ marginTop: 0, fontSize: "1.1em" }}>
          Dedup rate by tool
        </h2>
        {series.error ? (
          <ErrorState error={series.error} onRetry={() => series.refetch()} />
        ) : series.isPending ? (
          <Loading label="Loading the tools…" />
        ) : tools.length === 0 ? (
          <EmptyState title="No tools called in this range">Each tool appears here with its dedup rate once an agent calls the gate for it.</EmptyState>
        ) : (
          <ToolDedupTable tools={tools} callsHref={callsHref} rangeLabel={RANGES[range].label} />
        )}
      </section>
    </div>
  );
}
