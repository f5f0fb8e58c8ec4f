"use client";

import { Area, AreaChart, YAxis } from "recharts";
import type { SparkPoint } from "@/lib/dashboard/prepare-tool-sparklines";

/**
 * A tool's calls (muted) and dedup hits (accent) per bucket, drawn small and without axes or
 * focus stops: the numbers beside it carry the detail, the label says it to screen readers.
 */
export function Sparkline({ points, label, max }: { points: SparkPoint[]; label: string; /** The shared scale's top (every row's busiest bucket); its own peak without. */ max?: number }) {
  return (
    <figure role="img" aria-label={label} className="sparkline" data-testid="sparkline" style={{ margin: 0, width: 140, height: 36 }}>
      <AreaChart width={140} height={36} data={points} margin={{ top: 2, right: 0, bottom: 2, left: 0 }} accessibilityLayer={false}>
        <YAxis hide domain={[0, max ?? "dataMax"]} />
        <Area dataKey="calls" type="monotone" stroke="var(--exec)" fill="var(--exec)" fillOpacity={0.15} strokeWidth={1} isAnimationActive={false} dot={false} />
        <Area dataKey="dedupHits" type="monotone" stroke="var(--dedup)" fill="var(--dedup)" fillOpacity={0.45} strokeWidth={1.5} isAnimationActive={false} dot={false} />
      </AreaChart>
    </figure>
  );
}
