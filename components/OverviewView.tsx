"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { DecisionsChart } from "./DecisionsChart";
import { DecisionsTable } from "./DecisionsTable";
import { DedupRateChart } from "./DedupRateChart";
import { KpiGrid } from "./KpiGrid";
import { OperatorQueuePanel } from "./OperatorQueuePanel";
import { useProject } from "./ProjectContext";
import { RangePicker } from "./RangePicker";
import { ShadowPanel } from "./ShadowPanel";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { StormBanner } from "./StormBanner";
import { ToolDedupTable } from "./ToolDedupTable";
import { callsBehind, groupCallsHref } from "@/lib/dashboard/chart-links";
import { type DecisionGroupId, GROUP_IDS, decisionsOf } from "@/lib/dashboard/decision-groups";
import { formatInstant } from "@/lib/dashboard/format-time";
import { prepareKpis } from "@/lib/dashboard/prepare-kpis";
import { type DecisionPoint, hasTraffic, prepareDecisionSeries, prepareRateSeries, toolsOf } from "@/lib/dashboard/prepare-timeseries";
import { prepareToolSparklines } from "@/lib/dashboard/prepare-tool-sparklines";
import { type RangeSpec, rangeFromSearch, rangeToSearch, resolveRange } from "@/lib/dashboard/range";
import { changesIn, policyMarks } from "@/lib/dashboard/prepare-policy-marks";
import { useDedupQuery } from "@/lib/dashboard/queries/use-dedup-query";
import { usePolicyChangesQuery } from "@/lib/dashboard/queries/use-policy-changes-query";
import { useResendRequestsQuery } from "@/lib/dashboard/queries/use-resend-requests-query";
import { useStormsQuery } from "@/lib/dashboard/queries/use-storms-query";
import { useTimeseriesQuery } from "@/lib/dashboard/queries/use-timeseries-query";
import { ClientSelect } from "./ClientSelect";

export function OverviewView() {
  const { projectId } = useProject();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const spec = rangeFromSearch(search);
  const rateTool = search.get("rateTool") ?? "";
  const [now, setNow] = useState(() => Date.now());
  // A preset moves with the clock once a minute; the query keys change, the previous data stays shown.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const { from, to, bucket, label } = resolveRange(spec, now);
  const dedup = useDedupQuery(projectId, from, to);
  const series = useTimeseriesQuery(projectId, from, to, bucket);
  const storms = useStormsQuery(projectId, "open");
  const pending = useResendRequestsQuery(projectId, "pending");
  const points = useMemo(() => (series.data ? prepareDecisionSeries(series.data) : []), [series.data]);
  const rate = useMemo(() => (series.data ? prepareRateSeries(prepareDecisionSeries(series.data, { tool: rateTool || undefined })) : []), [series.data, rateTool]);
  const tools = useMemo(() => (series.data ? prepareToolSparklines(series.data) : []), [series.data]);
  const toolNames = useMemo(() => (series.data ? toolsOf(series.data) : []), [series.data]);
  const groups = useMemo(() => GROUP_IDS.filter((id) => points.some((p) => p[id] > 0)), [points]);
  // Every tool's policy changes in the range, marked on both charts (the rate chart of one tool: its own and the project default's).
  const policyChanges = usePolicyChangesQuery(projectId, from, to);
  const changes = useMemo(() => changesIn(policyChanges.data?.changes ?? [], from, to), [policyChanges.data, from, to]);
  const marks = useMemo(() => policyMarks(changes, points), [changes, points]);
  const rateMarks = useMemo(() => policyMarks(rateTool ? changes.filter((c) => c.tool === rateTool || c.tool === "*") : changes, rate), [changes, rate, rateTool]);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const callsHref = (tool: string) => `${base}/calls?${new URLSearchParams({ tool, from, to })}`;
  const kpis = prepareKpis({ dedup: dedup.data, pendingApprovals: pending.data?.requests.length, openStorms: storms.data?.storms.length });
  const refreshedAt = Math.max(series.dataUpdatedAt, dedup.dataUpdatedAt);

  function setSearch(next: URLSearchParams) {
    // Next.js folds history.pushState into its router: useSearchParams follows, no server round trip.
    window.history.pushState(null, "", `${pathname}?${next}`);
  }
  function setRange(next: RangeSpec) {
    setNow(Date.now());
    const params = rangeToSearch(next);
    if (rateTool) params.set("rateTool", rateTool);
    setSearch(params);
  }
  function setRateTool(tool: string) {
    const params = rangeToSearch(spec);
    if (tool) params.set("rateTool", tool);
    setSearch(params);
  }
  const open = (href: string | null) => href && router.push(href);
  const barHref = (group: DecisionGroupId, p: DecisionPoint) => groupCallsHref(base, group, { from: p.at, to: p.end });

  return (
    <div className="stack">
      <div className="row spread">
        <h1 style={{ margin: 0 }}>Overview</h1>
        <RangePicker key={rangeToSearch(spec).toString()} value={spec} onChange={setRange} />
      </div>
      <p className="muted row" style={{ margin: 0, gap: 8 }} data-testid="refreshed">
        <span>
          {label}
          {refreshedAt > 0 ? ` · last refreshed ${formatInstant(new Date(refreshedAt).toISOString(), "seconds")}` : ""}
          {series.isFetching || dedup.isFetching ? " · refreshing…" : ""}
        </span>
        <button
          type="button"
          onClick={() => {
            setNow(Date.now());
            void series.refetch();
            void dedup.refetch();
          }}
        >
          Refresh
        </button>
      </p>
      {storms.data ? <StormBanner storms={storms.data.storms} href={`${base}/storms`} /> : null}
      <KpiGrid kpis={kpis} hrefOf={(k) => (k.group ? groupCallsHref(base, k.group.id as DecisionGroupId, { from, to }) : null)} />
      {dedup.error ? <ErrorState error={dedup.error} onRetry={() => dedup.refetch()} /> : null}
      <OperatorQueuePanel projectId={projectId} from={from} to={to} rangeLabel={label} />
      <ShadowPanel projectId={projectId} from={from} to={to} rangeLabel={label} />
      <section aria-labelledby="chart-title" className="card">
        <h2 id="chart-title" style={{ marginTop: 0, fontSize: "1.1em" }}>
          Calls by decision
        </h2>
        <p className="muted chart-help">Each bar is one bucket&apos;s calls, stacked by decision. Click a bar to open the calls behind it.</p>
        {series.error ? (
          <ErrorState error={series.error} onRetry={() => series.refetch()} />
        ) : series.isPending ? (
          <Loading label="Loading the chart…" />
        ) : !hasTraffic(points) ? (
          <EmptyState title="No decisions in this range">Agents have not called the gate in this range ({label.toLowerCase()}).</EmptyState>
        ) : (
          <>
            <DecisionsChart points={points} bucket={bucket} groups={groups} onSelect={(group, p) => open(barHref(group, p))} annotations={marks} />
            <DecisionsTable points={points} groups={groups} hrefOf={barHref} />
          </>
        )}
      </section>
      <section aria-labelledby="rate-title" className="card">
        <div className="row spread">
          <h2 id="rate-title" style={{ margin: 0, fontSize: "1.1em" }}>
            Dedup rate over time
          </h2>
          <label htmlFor="rate-tool" className="row" style={{ gap: 6 }}>
            <span>Tool</span>
            <ClientSelect id="rate-tool" value={rateTool} onChange={(e) => setRateTool(e.target.value)}>
              <option value="">Every tool (project)</option>
              {[...new Set([...toolNames, ...(rateTool ? [rateTool] : [])])].map((tool) => (
                <option key={tool} value={tool}>
                  {tool}
                </option>
              ))}
            </ClientSelect>
          </label>
        </div>
        <p className="muted chart-help">Share of calls answered from a previous outcome (replay, in progress, refused). Click a point for its dedup hits.</p>
        {series.error ? null : series.isPending ? (
          <Loading label="Loading the chart…" />
        ) : rate.every((p) => p.rate === null) ? (
          <EmptyState title="No calls in this range">{rateTool ? `${rateTool} was not called in this range.` : "Agents have not called the gate in this range."}</EmptyState>
        ) : (
          <DedupRateChart
            points={rate}
            bucket={bucket}
            label={`Dedup rate over time, ${rateTool || "every tool"}`}
            onSelect={(p) => open(callsBehind(base, { decisions: decisionsOf("dedupHits"), from: p.at, to: p.end, tool: rateTool || undefined }))}
            annotations={rateMarks}
          />
        )}
      </section>
      {changes.length > 0 ? (
        <p className="muted" style={{ margin: 0 }} data-testid="overview-policy-changes">
          Policy changes in this range (dashed lines on both charts):{" "}
          {changes.map((c) => `${c.tool === "*" ? "project default" : c.tool} v${c.version} at ${formatInstant(new Date(c.at).toISOString(), "seconds")} by ${c.author}`).join("; ")}
          {policyChanges.data?.truncated ? " (the latest 500 only)" : ""}
        </p>
      ) : null}
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
          <ToolDedupTable tools={tools} callsHref={callsHref} rangeLabel={label} />
        )}
      </section>
    </div>
  );
}
