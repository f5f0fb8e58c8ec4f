"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { spansDays } from "@/lib/dashboard/prepare-timeseries";
import type { Bucket } from "@/lib/dashboard/range";
import type { SeriesPoint } from "@/lib/dashboard/tool-series";
import { policyMarkLines } from "./chart-marks";
import { timeAxisProps, yAxisTitle } from "./chart-axes";

interface Props {
  testId: string;
  /** What the chart shows, for screen readers and the y axis. */
  title: string;
  points: SeriesPoint[];
  bucket: Bucket;
  color: string;
  format: (value: number) => string;
  /** The y axis' ticks, shorter than `format` where it must be (the axis is as wide as the decisions chart's). */
  tick?: (value: number) => string;
  /** Policy revisions: the bucket each fell in and a short label (the same marks on every chart of the page). */
  annotations: { at: number; label: string }[];
  allowDecimals?: boolean;
}

const tooltipTime = (at: unknown) => `${new Date(Number(at)).toISOString().replace("T", " ").slice(0, 16)} UTC`;

/** One series per bucket as bars, on the same time axis as the tool's decisions chart, with the policy's revisions marked. */
export function ToolSeriesChart({ testId, title, points, bucket, color, format, tick = format, annotations, allowDecimals = false }: Props) {
  return (
    <figure className="chart" style={{ margin: "0 0 16px", height: 200 }} aria-label={title} data-testid={testId} data-annotations={annotations.length}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={points} margin={{ top: 16, right: 8, bottom: 20, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis {...timeAxisProps(bucket, spansDays(points))} />
          <YAxis allowDecimals={allowDecimals} stroke="var(--muted)" fontSize={12} width={48} tickFormatter={(v: number) => tick(v)} label={yAxisTitle(title)} />
          <Tooltip
            labelFormatter={tooltipTime}
            formatter={(value) => [format(Number(value)), title]}
            cursor={{ fill: "var(--border)", fillOpacity: 0.4 }}
            contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", color: "var(--fg)" }}
          />
          <Bar dataKey="value" name={title} fill={color} isAnimationActive={false} />
          {policyMarkLines(annotations)}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
