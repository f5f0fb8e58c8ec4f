import type { LoadRun } from "./load";

export interface RepResult {
  ops: number;
  seconds: number;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  capped: boolean;
  errors: number;
}

export interface Summary {
  ops: number;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Nearest-rank quantile of an ascending array. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

export function summarizeRun(run: LoadRun): RepResult {
  const sorted = Float64Array.from(run.latencies).sort();
  return {
    ops: run.ops,
    seconds: round(run.seconds, 6),
    opsPerSecond: round(run.ops / run.seconds, 1),
    p50Ms: round(quantile(sorted, 0.5), 3),
    p99Ms: round(quantile(sorted, 0.99), 3),
    capped: run.capped,
    errors: run.errors,
  };
}

/** Each figure is the median of its own repetitions: only ratios between cells are stable. */
export function summarizeReps(reps: RepResult[]): Summary {
  return {
    ops: Math.round(median(reps.map((r) => r.ops))),
    opsPerSecond: round(median(reps.map((r) => r.opsPerSecond)), 1),
    p50Ms: round(median(reps.map((r) => r.p50Ms)), 3),
    p99Ms: round(median(reps.map((r) => r.p99Ms)), 3),
  };
}
