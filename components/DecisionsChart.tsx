"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { DECISION_GROUPS, type DecisionGroupId } from "@/lib/dashboard/decision-groups";
import { type DecisionPoint, perBucketLabel, spansDays } from "@/lib/dashboard/prepare-timeseries";
import type { Bucket } from "@/lib/dashboard/range";
import { policyMarkLines } from "./chart-marks";
import { timeAxisProps, yAxisTitle } from "./chart-axes";

interface Props {
  points: DecisionPoint[];
  bucket: Bucket;
  /** The groups that occurred in the range (a group never seen gets no legend entry). */
  groups: DecisionGroupId[];
  /** A bar segment was clicked: open the calls behind it. */
  onSelect?: (group: DecisionGroupId, point: DecisionPoint) => void;
  /** Marks on the time axis (a policy revision): the bucket it fell in, and a short label. */
  annotations?: { at: number; label: string }[];
}

const tooltipTime = (at: unknown) => `${new Date(Number(at)).toISOString().replace("T", " ").slice(0, 16)} UTC`;

/** Stacked bars: every begin decision per bucket, one colour per group, so each bar is the bucket's calls. Renders what it is given. */
export function DecisionsChart({ points, bucket, groups, onSelect, annotations = [] }: Props) {
  const withDate = spansDays(points);
  const shown = DECISION_GROUPS.filter((g) => groups.includes(g.id));
  return (
    <figure className="chart" style={{ margin: 0 }} aria-label={`Calls ${perBucketLabel(bucket)} by decision`} data-testid="decisions-chart" data-annotations={annotations.length}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={points} margin={{ top: 8, right: 8, bottom: 20, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis {...timeAxisProps(bucket, withDate)} />
          <YAxis
            allowDecimals={false}
            stroke="var(--muted)"
            fontSize={12}
            width={48}
            label={yAxisTitle(`Calls ${perBucketLabel(bucket)}`)}
          />
          <Tooltip content={<BucketTooltip />} cursor={{ fill: "var(--border)", fillOpacity: 0.4 }} />
          {/* No fixed height: on a phone the legend wraps to two lines and the plot moves down for it. */}
          <Legend verticalAlign="top" />
          {shown.map((g) => (
            <Bar
              key={g.id}
              dataKey={g.id}
              className={`bar-${g.id}`}
              name={g.label}
              stackId="decisions"
              fill={g.color}
              isAnimationActive={false}
              cursor={onSelect ? "pointer" : undefined}
              onClick={onSelect ? (entry: { payload?: DecisionPoint }) => entry.payload && onSelect(g.id, entry.payload) : undefined}
            />
          ))}
          {policyMarkLines(annotations)}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

const int = new Intl.NumberFormat("en-US");

/** A bucket's decisions: only the groups it had (no row of zeros), and its total. */
function BucketTooltip({ active, payload, label }: { active?: boolean; payload?: readonly { name?: unknown; value?: unknown; color?: string }[]; label?: unknown }) {
  if (!active || !payload || payload.length === 0) return null;
  const rows = payload.filter((entry) => Number(entry.value) > 0);
  const total = rows.reduce((sum, entry) => sum + Number(entry.value), 0);
  return (
    <div style={{ background: "var(--card)", border: "1px solid var(--border)", color: "var(--fg)", padding: "6px 10px", fontSize: 13 }}>
      <div style={{ marginBottom: 4 }}>{tooltipTime(label)}</div>
      {rows.map((entry) => (
        <div key={String(entry.name)} style={{ color: entry.color }}>
          {String(entry.name)}: {int.format(Number(entry.value))}
        </div>
      ))}
      <div style={{ marginTop: 4, fontWeight: 600 }}>Total: {int.format(total)}</div>
    </div>
  );
}
