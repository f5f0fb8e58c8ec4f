import { DEDUP_HIT_DECISIONS } from "./rollup-tally";

/** A ledger line of one tool, as the per-tool page reads it: begins and completes. */
export interface ToolLedgerLine {
  type: string;
  decision: string;
  callId: string | null;
  attempt: number;
  at: number;
  /** The line's detail (JSON text): a complete's reported cost is in it. */
  detail?: string | null;
}

/** Reported costs in one currency: the total, and per bucket (only buckets with a cost). */
export interface CostFigures {
  currency: string;
  amount: number;
  completes: number;
  series: { at: number; amount: number }[];
}

export interface ToolFigures {
  /** Every begin decision. */
  calls: number;
  /** Begins by decision name (execute, replay, blocked, preview_required, …). */
  decisions: Record<string, number>;
  /** replay + in_progress + refused (DEDUP_HIT_DECISIONS), as on the overview. */
  dedupHits: number;
  dedupRate: number;
  /** Executions whose complete is in the range: how long the tool ran (begin → complete of one attempt). */
  latency: { count: number; p50Ms: number | null; p95Ms: number | null };
  completes: number;
  /** failed + released completes (a released attempt is a retryable failure). */
  failures: number;
  failureRate: number;
  /** What completes reported (`cost` on complete, DESIGN's Cost), per currency; empty when none did. */
  costs: CostFigures[];
}

/** A complete's reported cost, from its ledger detail ({ cost: { amount, currency } }). */
export function reportedCost(detail: string | null | undefined): { amount: number; currency: string } | null {
  if (!detail) return null;
  try {
    const cost = (JSON.parse(detail) as { cost?: { amount?: unknown; currency?: unknown } }).cost;
    return cost && typeof cost.amount === "number" && typeof cost.currency === "string" ? { amount: cost.amount, currency: cost.currency } : null;
  } catch {
    return null;
  }
}

/** Sums in micro-units, so a total of decimal amounts (0.1 + 0.2) is what a person adds up. */
const MICROS = 1_000_000;

/** Nearest rank: the smallest value with at least q of the values at or below it. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * A tool's figures over a range, from its ledger lines oldest first (issue #38 §2): its decisions
 * in the overview's vocabulary, and the latency and failure rate of its executions. An execution's
 * latency is the time from its begin (execute or verify) to the complete of the same attempt; an
 * attempt whose begin is before the range is left out of the latency (its start is unknown).
 */
export function computeToolFigures(lines: readonly ToolLedgerLine[], bucketMs = 3_600_000): ToolFigures {
  const decisions: Record<string, number> = {};
  const started = new Map<string, number>();
  const durations: number[] = [];
  let calls = 0;
  let completes = 0;
  let failures = 0;
  const costs = new Map<string, { micros: number; completes: number; buckets: Map<number, number> }>();
  for (const line of lines) {
    if (line.type === "begin") {
      calls++;
      decisions[line.decision] = (decisions[line.decision] ?? 0) + 1;
      if ((line.decision === "execute" || line.decision === "verify") && line.callId !== null) started.set(`${line.callId}#${line.attempt}`, line.at);
    } else if (line.type === "complete") {
      completes++;
      if (line.decision === "failed" || line.decision === "released") failures++;
      const begun = line.callId === null ? undefined : started.get(`${line.callId}#${line.attempt}`);
      if (begun !== undefined) durations.push(line.at - begun);
      const cost = reportedCost(line.detail);
      if (cost) {
        const sum = costs.get(cost.currency) ?? { micros: 0, completes: 0, buckets: new Map<number, number>() };
        const micros = Math.round(cost.amount * MICROS);
        const bucket = Math.floor(line.at / bucketMs) * bucketMs;
        sum.micros += micros;
        sum.completes++;
        sum.buckets.set(bucket, (sum.buckets.get(bucket) ?? 0) + micros);
        costs.set(cost.currency, sum);
      }
    }
  }
  durations.sort((a, b) => a - b);
  const dedupHits = DEDUP_HIT_DECISIONS.reduce((sum, decision) => sum + (decisions[decision] ?? 0), 0);
  return {
    calls,
    decisions,
    dedupHits,
    dedupRate: calls === 0 ? 0 : dedupHits / calls,
    latency: { count: durations.length, p50Ms: percentile(durations, 0.5), p95Ms: percentile(durations, 0.95) },
    completes,
    failures,
    failureRate: completes === 0 ? 0 : failures / completes,
    costs: [...costs]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([currency, sum]) => ({
        currency,
        amount: sum.micros / MICROS,
        completes: sum.completes,
        series: [...sum.buckets].sort(([a], [b]) => a - b).map(([at, micros]) => ({ at, amount: micros / MICROS })),
      })),
  };
}
