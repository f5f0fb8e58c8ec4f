"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartMark } from "@/lib/dashboard/prepare-policy-marks";
import { type RatePoint, spansDays } from "@/lib/dashboard/prepare-timeseries";
import type { Bucket } from "@/lib/dashboard/range";
import { policyMarkLines } from "./chart-marks";
import { timeAxisProps, yAxisTitle } from "./chart-axes";

interface Props {
  points: RatePoint[];
  bucket: Bucket;
  label: string;
  /** A point was clicked: open the dedup hits behind it. */
  onSelect?: (point: RatePoint) => void;
  /** Policy changes: the bucket each fell in and its label (prepare-policy-marks.ts). */
  annotations?: ChartMark[];
}

/**
 * The share of calls answered with a dedup hit, per bucket, 0–100 %. Buckets without calls are
 * gaps in the line (no rate), never a drop to zero; each bucket is a dot, joined by straight lines.
 */
export function DedupRateChart({ points, bucket, label, onSelect, annotations = [] }: Props) {
  const withDate = spansDays(points);
  return (
    <figure className="chart" style={{ margin: 0 }} aria-label={label} data-testid="dedup-rate-chart" data-annotations={annotations.length}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 8, right: 12, bottom: 20, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis {...timeAxisProps(bucket, withDate)} />
          <YAxis
            domain={[0, 100]}
            ticks={[0, 25, 50, 75, 100]}
            tickFormatter={(v: number) => `${v}%`}
            stroke="var(--muted)"
            fontSize={12}
            width={48}
            label={yAxisTitle("Dedup rate (% of calls)")}
          />
          <Tooltip
            labelFormatter={(at) => `${new Date(Number(at)).toISOString().replace("T", " ").slice(0, 16)} UTC`}
            formatter={(value, _name, item) => {
              const p = (item as { payload?: RatePoint }).payload;
              return [`${value}% (${p?.dedupHits ?? 0} of ${p?.begins ?? 0} calls)`, "Dedup rate"];
            }}
            contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", color: "var(--fg)" }}
          />
          <Line
            dataKey="rate"
            name="Dedup rate"
            type="linear"
            stroke="var(--dedup)"
            strokeWidth={2}
            dot={{ r: 2.5, fill: "var(--dedup)" }}
            activeDot={
              onSelect
                ? { r: 6, cursor: "pointer", onClick: (_: unknown, data: unknown) => {
                    const p = (data as { payload?: RatePoint }).payload;
                    if (p && p.rate !== null) onSelect(p);
                  } }
                : { r: 5 }
            }
            connectNulls={false}
            isAnimationActive={false}
          />
          {policyMarkLines(annotations)}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
