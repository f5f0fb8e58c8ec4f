"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { GROUP_IDS } from "@/lib/dashboard/decision-groups";
import { FIGURE_DEFINITIONS } from "@/lib/dashboard/figure-definitions";
import { formatInstant } from "@/lib/dashboard/format-time";
import { formatRate } from "@/lib/dashboard/prepare-kpis";
import { prepareDecisionSeries } from "@/lib/dashboard/prepare-timeseries";
import { usePolicyHistoryQuery } from "@/lib/dashboard/queries/use-policies-query";
import { useTimeseriesQuery } from "@/lib/dashboard/queries/use-timeseries-query";
import { useStormsQuery } from "@/lib/dashboard/queries/use-storms-query";
import { useToolFiguresQuery } from "@/lib/dashboard/queries/use-tool-figures-query";
import { type RangeSpec, rangeFromSearch, rangeToSearch, resolveRange } from "@/lib/dashboard/range";
import { costSeries, formatCost, stormSeries } from "@/lib/dashboard/tool-series";
import { policyMarks } from "@/lib/dashboard/prepare-policy-marks";
import { DecisionsChart } from "./DecisionsChart";
import { ToolSeriesChart } from "./ToolSeriesChart";
import { RangePicker } from "./RangePicker";
import { ErrorState, Loading } from "./StateViews";

const int = new Intl.NumberFormat("en-US");
const ms = (value: number | null) => (value === null ? "—" : `${int.format(Math.round(value))} ms`);

/**
 * A tool's trends over the chosen range (issue #38 §2), beside its policy: calls, dedup rate,
 * decisions, latency p50/p95 and failure rate of its executions, the costs its completes reported
 * and its storms, with the policy's revisions marked on every chart. The figures use the overview's
 * vocabulary, so they agree with it.
 */
export function ToolTrends({ projectId, tool }: { projectId: string; tool: string }) {
  const pathname = usePathname();
  const search = useSearchParams();
  const spec = rangeFromSearch(search);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const { from, to, bucket, label } = resolveRange(spec, now);
  const figures = useToolFiguresQuery(projectId, tool, from, to, bucket);
  const storms = useStormsQuery(projectId);
  const series = useTimeseriesQuery(projectId, from, to, bucket);
  const history = usePolicyHistoryQuery(projectId, tool);
  const points = useMemo(() => (series.data ? prepareDecisionSeries(series.data, { tool }) : []), [series.data, tool]);
  const groups = useMemo(() => GROUP_IDS.filter((id) => points.some((p) => p[id] > 0)), [points]);
  const changes = (history.data?.revisions ?? []).filter((r) => Date.parse(r.at) >= Date.parse(from) && Date.parse(r.at) < Date.parse(to));
  const toolStorms = useMemo(() => (storms.data?.storms ?? []).filter((s) => s.tool === tool), [storms.data, tool]);
  const stormPoints = useMemo(() => stormSeries(points, toolStorms), [points, toolStorms]);
  const annotations = policyMarks(changes.map((r) => ({ at: Date.parse(r.at), tool, version: r.version })), points, false);

  function setRange(next: RangeSpec) {
    setNow(Date.now());
    window.history.pushState(null, "", `${pathname}?${rangeToSearch(next)}`);
  }

  const f = figures.data;
  const tiles = f
    ? [
        { id: "calls", label: "Calls", value: int.format(f.calls), hint: FIGURE_DEFINITIONS.calls },
        { id: "dedup-hits", label: "Dedup hits", value: int.format(f.dedupHits), hint: FIGURE_DEFINITIONS.dedupHits },
        { id: "dedup-rate", label: "Dedup rate", value: formatRate(f.dedupRate), hint: FIGURE_DEFINITIONS.dedupRate },
        { id: "latency-p50", label: "Latency p50", value: ms(f.latency.p50Ms), hint: `Median time from an execution's begin to its complete (${f.latency.count} executions)` },
        { id: "latency-p95", label: "Latency p95", value: ms(f.latency.p95Ms), hint: "95th percentile (nearest rank) of the same" },
        { id: "failure-rate", label: "Failure rate", value: formatRate(f.failureRate), hint: `failed + released completes / completes (${f.failures} of ${f.completes})` },
        ...(f.costs.length === 0
          ? [{ id: "cost", label: "Cost", value: "—", hint: "No complete of this tool reported a cost in this range (`cost` on complete)" }]
          : f.costs.map((c) => ({
              id: f.costs.length === 1 ? "cost" : `cost-${c.currency}`,
              label: f.costs.length === 1 ? "Cost" : `Cost (${c.currency})`,
              value: formatCost(c.amount, c.currency),
              hint: `Sum of the costs ${c.completes} completes reported in ${c.currency}`,
            }))),
        { id: "storms", label: "Storms", value: int.format(toolStorms.filter((s) => overlaps(s, from, to)).length), hint: "Retry storms of this tool that overlap the range" },
      ]
    : [];
  return (
    <section className="stack" aria-labelledby="trends-title" data-testid="tool-trends">
      <div className="row spread">
        <h2 id="trends-title" style={{ margin: 0 }}>
          Trends · {label}
        </h2>
        <RangePicker key={rangeToSearch(spec).toString()} value={spec} onChange={setRange} />
      </div>
      {figures.error ? (
        <ErrorState error={figures.error} onRetry={() => figures.refetch()} />
      ) : !f ? (
        <Loading label="Loading the tool's figures…" />
      ) : (
        <>
          <ul className="kpis" aria-label="The tool's figures">
            {tiles.map((t) => (
              <li key={t.id} className="card kpi" data-testid={`tool-kpi-${t.id}`} title={t.hint}>
                <div className="label">{t.label}</div>
                <div className="value">{t.value}</div>
              </li>
            ))}
          </ul>
          <p className="muted" style={{ margin: 0 }} data-testid="tool-decisions">
            Decisions:{" "}
            {Object.entries(f.decisions)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([decision, n]) => `${decision} ${int.format(n)}`)
              .join(" · ") || "none in this range"}
            {f.truncated ? " (the newest calls only: the range holds more than one answer reads)" : ""}
          </p>
        </>
      )}
      {points.length > 0 ? (
        // Room below for the time axis' title, so the next chart's heading never sits on it.
        <div style={{ height: 260, marginBottom: 16 }}>
          <DecisionsChart points={points} bucket={bucket} groups={groups} annotations={annotations} />
        </div>
      ) : null}
      {points.length > 0 && f
        ? f.costs.map((c) => (
            <section key={c.currency} aria-label={`Cost in ${c.currency}`}>
              <h3 style={{ margin: "8px 0 4px", fontSize: "1em" }}>Cost ({c.currency})</h3>
              <ToolSeriesChart
                testId="tool-cost-chart"
                title={`Cost in ${c.currency}`}
                points={costSeries(points, c.series)}
                bucket={bucket}
                color="var(--exec)"
                format={(v) => formatCost(v, c.currency)}
                tick={(v) => formatCost(v, c.currency, true)}
                annotations={annotations}
                allowDecimals
              />
            </section>
          ))
        : null}
      {points.length > 0 ? (
        <section aria-label="Storms">
          <h3 style={{ margin: "8px 0 4px", fontSize: "1em" }}>Storms</h3>
          <ToolSeriesChart testId="tool-storms-chart" title="Storms open" points={stormPoints} bucket={bucket} color="var(--warn)" format={(v) => int.format(v)} annotations={annotations} />
        </section>
      ) : null}
      {changes.length > 0 ? (
        <p className="muted" style={{ margin: 0 }} data-testid="tool-policy-changes">
          Policy changes in this range (dashed lines on every chart):{" "}
          {changes.map((r) => `v${r.version} at ${formatInstant(r.at, "seconds")} by ${r.author}`).join("; ")}
        </p>
      ) : null}
    </section>
  );
}

const overlaps = (storm: { startedAt: string; endedAt: string | null }, from: string, to: string) =>
  Date.parse(storm.startedAt) < Date.parse(to) && (storm.endedAt === null || Date.parse(storm.endedAt) > Date.parse(from));
