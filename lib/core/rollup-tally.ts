/**
 * What the rollup kinds mean (the events trigger writes a begin's decision, `complete_<outcome>`
 * or `lease_lost`), folded into the figures operators read. Pure: the stats service and the
 * dashboard share it.
 */
export const COMPLETE_PREFIX = "complete_";
export const LEASE_LOST_KIND = "lease_lost";
export const DEDUP_HIT_DECISIONS: readonly string[] = ["replay", "in_progress", "refused"];

export interface KindTotal {
  kind: string;
  total: number;
  latencyUs: number;
}

export interface DecisionFigures {
  /** Every begin decision. */
  begins: number;
  /** replay + in_progress + refused: the tool did not run again. */
  dedupHits: number;
  /** dedupHits / begins (0 without begins). */
  dedupRate: number;
  /** execute + verify: the caller was told to act. */
  executions: number;
  replays: number;
  inProgress: number;
  refused: number;
  conflicts: number;
  blocked: number;
  approvalRequired: number;
  /** preview_required: a dry run asked for first. */
  previewRequired: number;
  completes: { succeeded: number; failed: number; released: number };
  /** failed (permanent) + released (retryable): the tool reported a failure. */
  failures: number;
  leaseLost: number;
  /** Mean time to decide a begin, in ms (null without begins). */
  meanBeginLatencyMs: number | null;
}

/** The event type and decision a rollup kind stands for. */
export function describeKind(kind: string): { type: "begin" | "complete" | "lease_lost"; decision: string } {
  if (kind === LEASE_LOST_KIND) return { type: "lease_lost", decision: LEASE_LOST_KIND };
  if (kind.startsWith(COMPLETE_PREFIX)) return { type: "complete", decision: kind.slice(COMPLETE_PREFIX.length) };
  return { type: "begin", decision: kind };
}

export function tallyKinds(totals: readonly KindTotal[]): DecisionFigures {
  const count = new Map<string, number>();
  let begins = 0;
  let beginLatencyUs = 0;
  for (const { kind, total, latencyUs } of totals) {
    count.set(kind, (count.get(kind) ?? 0) + total);
    if (describeKind(kind).type === "begin") {
      begins += total;
      beginLatencyUs += latencyUs;
    }
  }
  const of = (kind: string) => count.get(kind) ?? 0;
  const dedupHits = DEDUP_HIT_DECISIONS.reduce((sum, kind) => sum + of(kind), 0);
  const completes = { succeeded: of("complete_succeeded"), failed: of("complete_failed"), released: of("complete_released") };
  return {
    begins,
    dedupHits,
    dedupRate: begins === 0 ? 0 : dedupHits / begins,
    executions: of("execute") + of("verify"),
    replays: of("replay"),
    inProgress: of("in_progress"),
    refused: of("refused"),
    conflicts: of("conflict"),
    blocked: of("blocked"),
    approvalRequired: of("approval_required"),
    previewRequired: of("preview_required"),
    completes,
    failures: completes.failed + completes.released,
    leaseLost: of(LEASE_LOST_KIND),
    meanBeginLatencyMs: begins === 0 ? null : beginLatencyUs / begins / 1000,
  };
}
