"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { DecisionPoint } from "@/lib/dashboard/prepare-timeseries";
import { formatBucket } from "@/lib/dashboard/prepare-timeseries";
import type { Bucket } from "@/lib/dashboard/range";

/** Stacked bars: executions vs dedup hits per bucket. Renders what it is given; shaping is in prepare-timeseries. */
export function DecisionsChart({ points, bucket }: { points: DecisionPoint[]; bucket: Bucket }) {
  return (
    <figure className="chart" style={{ margin: 0 }} aria-label="Executions and dedup hits over time" data-testid="decisions-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis dataKey="at" tickFormatter={(at: number) => formatBucket(at, bucket)} stroke="var(--muted)" fontSize={12} minTickGap={24} />
          <YAxis allowDecimals={false} stroke="var(--muted)" fontSize={12} width={40} />
          <Tooltip
            labelFormatter={(at) => new Date(Number(at)).toISOString().replace("T", " ").slice(0, 16) + " UTC"}
            contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", color: "var(--fg)" }}
          />
          <Legend />
          <Bar dataKey="executions" name="Executions" stackId="decisions" fill="var(--exec)" isAnimationActive={false} />
          <Bar dataKey="dedupHits" name="Dedup hits" stackId="decisions" fill="var(--dedup)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
