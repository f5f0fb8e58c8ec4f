"use client";

import { Area, CartesianGrid, ComposedChart, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type StormRateChartData, formatRateTick } from "@/lib/dashboard/prepare-storm-rate";

/** Dedup hits per window around a storm, against its baseline and the threshold it crossed; the storm's span shaded. */
export function StormRateChart({ data }: { data: StormRateChartData }) {
  const tick = (at: number) => formatRateTick(at, data.bucketSeconds);
  return (
    <figure className="chart" style={{ margin: 0 }} aria-label="Dedup hits per window against the baseline" data-testid="storm-rate-chart">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={data.points} margin={{ top: 16, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis dataKey="at" type="number" scale="time" domain={["dataMin", "dataMax"]} tickFormatter={tick} stroke="var(--muted)" fontSize={12} minTickGap={32} />
          <YAxis domain={[0, data.yMax]} allowDecimals={false} stroke="var(--muted)" fontSize={12} width={40} />
          <ReferenceArea x1={data.stormFrom} x2={data.stormTo} fill="var(--warn)" fillOpacity={0.08} ifOverflow="extendDomain" />
          <ReferenceLine y={data.threshold} stroke="var(--warn)" strokeDasharray="6 4" label={{ value: `threshold ${data.threshold.toFixed(1)}`, position: "insideTopLeft", fill: "var(--warn)", fontSize: 12 }} />
          <ReferenceLine y={data.baseline} stroke="var(--muted)" strokeDasharray="2 4" label={{ value: `baseline ${data.baseline.toFixed(1)}`, position: "insideBottomLeft", fill: "var(--muted)", fontSize: 12 }} />
          <Tooltip
            labelFormatter={(at) => `${new Date(Number(at)).toISOString().replace("T", " ").slice(0, 19)} UTC`}
            formatter={(value) => [value, "dedup hits / window"]}
            contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", color: "var(--fg)" }}
          />
          <Area dataKey="rate" name="Dedup hits per window" type="monotone" stroke="var(--dedup)" fill="var(--dedup)" fillOpacity={0.3} isAnimationActive={false} dot={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </figure>
  );
}
