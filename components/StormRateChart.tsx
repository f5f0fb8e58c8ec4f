"use client";

import { Bar, CartesianGrid, ComposedChart, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type StormRateChartData, type StormRatePoint, formatRateTick } from "@/lib/dashboard/prepare-storm-rate";
import { formatCount } from "@/lib/dashboard/format-count";
import { yAxisTitle } from "./chart-axes";

/**
 * Dedup hits per window around a storm, one bar per bucket (exactly what was counted: no curve that
 * rises before the burst did), against its baseline and the threshold it crossed; the storm's span shaded.
 */
export function StormRateChart({ data, onSelect }: { data: StormRateChartData; onSelect?: (point: StormRatePoint) => void }) {
  const tick = (at: number) => formatRateTick(at, data.bucketSeconds);
  const half = (data.bucketSeconds * 1000) / 2;
  return (
    <figure className="chart" style={{ margin: 0 }} aria-label="Dedup hits per window against the baseline" data-testid="storm-rate-chart">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={data.points} margin={{ top: 16, right: 16, bottom: 20, left: 8 }} barCategoryGap={1}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis
            dataKey="mid"
            type="number"
            scale="time"
            domain={[(min: number) => min - half, (max: number) => max + half]}
            tickFormatter={tick}
            stroke="var(--muted)"
            fontSize={12}
            minTickGap={32}
            label={{ value: "Time (UTC)", position: "insideBottom", offset: -14, fill: "var(--muted)", fontSize: 12 }}
          />
          <YAxis
            domain={[0, data.yMax]}
            ticks={data.ticks}
            allowDecimals={data.ticks.some((t) => !Number.isInteger(t))}
            stroke="var(--muted)"
            fontSize={12}
            width={48}
            label={yAxisTitle(`Dedup hits per ${data.bucketSeconds === 1 ? "1 s" : "storm"} window`)}
          />
          <ReferenceArea x1={data.stormFrom} x2={data.stormTo} fill="var(--warn)" fillOpacity={0.08} ifOverflow="extendDomain" />
          <ReferenceLine
            y={data.threshold}
            stroke="var(--warn)"
            strokeDasharray="6 4"
            label={{ value: `threshold ${formatCount(data.threshold)}`, position: data.labels.threshold, fill: "var(--warn)", fontSize: 12 }}
          />
          <ReferenceLine
            y={data.baseline}
            stroke="var(--muted)"
            strokeDasharray="2 4"
            label={{ value: `baseline ${formatCount(data.baseline)}`, position: data.labels.baseline, fill: "var(--muted)", fontSize: 12 }}
          />
          <Tooltip
            labelFormatter={(mid) => `${new Date(Number(mid) - half).toISOString().replace("T", " ").slice(0, 19)} UTC (window start)`}
            formatter={(value) => [value, "dedup hits / window"]}
            cursor={{ fill: "var(--border)", fillOpacity: 0.4 }}
            contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", color: "var(--fg)" }}
          />
          <Bar
            dataKey="rate"
            name="Dedup hits per window"
            fill="var(--dedup)"
            isAnimationActive={false}
            cursor={onSelect ? "pointer" : undefined}
            onClick={onSelect ? (entry: { payload?: StormRatePoint }) => entry.payload && onSelect(entry.payload) : undefined}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </figure>
  );
}
