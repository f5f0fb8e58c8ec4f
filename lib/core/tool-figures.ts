import { DEDUP_HIT_DECISIONS } from "./rollup-tally";

/** A ledger line of one tool, as the per-tool page reads it: begins and completes. */
export interface ToolLedgerLine {
  type: string;
  decision: string;
  callId: string | null;
  attempt: number;
  at: number;
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
}

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
export function computeToolFigures(lines: readonly ToolLedgerLine[]): ToolFigures {
  const decisions: Record<string, number> = {};
  const started = new Map<string, number>();
  const durations: number[] = [];
  let calls = 0;
  let completes = 0;
  let failures = 0;
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
  };
}
