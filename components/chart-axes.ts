import { formatBucket } from "@/lib/dashboard/prepare-timeseries";
import type { Bucket } from "@/lib/dashboard/range";

/** The time axis every overview chart shares: UTC ticks (with the date when the points span days) and its title. */
export function timeAxisProps(bucket: Bucket, withDate: boolean) {
  return {
    dataKey: "at",
    tickFormatter: (at: number) => formatBucket(at, bucket, withDate),
    stroke: "var(--muted)",
    fontSize: 12,
    minTickGap: 24,
    label: { value: withDate ? "Date and time (UTC)" : "Time (UTC)", position: "insideBottom" as const, offset: -14, fill: "var(--muted)", fontSize: 12 },
  };
}

/** A y axis title, written upwards along the axis. */
export function yAxisTitle(value: string) {
  return { value, angle: -90, position: "insideLeft" as const, offset: 0, fill: "var(--muted)", fontSize: 12, style: { textAnchor: "middle" as const } };
}
