import type { BeginDecisionName } from "./record";
import type { UnreplayableReason } from "./simulation-keys";

/** A decision the simulator can predict: the gate's own, or a begin the draft would refuse with a 4xx. */
export type SimulatedDecision = BeginDecisionName | "rejected";

export interface DecisionTally {
  executed: number;
  deduped: number;
  refused: number;
  conflicts: number;
  blocked: number;
  approvalRequired: number;
  /** preview_required: the draft asks for a dry run (and maybe a human) first. */
  previewRequired: number;
  loopWarnings: number;
  rejected: number;
}

export const emptyTally = (): DecisionTally => ({
  executed: 0,
  deduped: 0,
  refused: 0,
  conflicts: 0,
  blocked: 0,
  approvalRequired: 0,
  previewRequired: 0,
  loopWarnings: 0,
  rejected: 0,
});

const BUCKET: Record<SimulatedDecision, keyof DecisionTally> = {
  execute: "executed",
  verify: "executed",
  replay: "deduped",
  in_progress: "deduped",
  refused: "refused",
  conflict: "conflicts",
  blocked: "blocked",
  approval_required: "approvalRequired",
  // Its own bucket: a preview is not a resend's approval, and tallying it as one hid it (issue #38).
  preview_required: "previewRequired",
  rejected: "rejected",
};

export function countDecision(tally: DecisionTally, decision: SimulatedDecision, loopWarned: boolean): void {
  tally[BUCKET[decision]]++;
  if (loopWarned) tally.loopWarnings++;
}

/** The decisions actually taken, in the same buckets. */
export function tallyDecisions(decisions: readonly { decision: string; loopWarned: boolean }[]): DecisionTally {
  const tally = emptyTally();
  for (const { decision, loopWarned } of decisions) {
    if (decision in BUCKET) countDecision(tally, decision as SimulatedDecision, loopWarned);
  }
  return tally;
}

/** One sampled begin: what was decided, and what the draft decides (null: it could not be replayed). */
export interface BeginVerdict {
  recorded: BeginDecisionName;
  recordedLoopWarning: boolean;
  simulated: SimulatedDecision | null;
  simulatedLoopWarning: boolean;
  unreplayable: UnreplayableReason | null;
}

export interface UnreplayableCount {
  reason: UnreplayableReason;
  count: number;
}

/** Both tallies cover the same calls: those the draft could be replayed over. */
export function tallyVerdicts(verdicts: readonly BeginVerdict[]): { simulated: DecisionTally; actual: DecisionTally; unreplayable: UnreplayableCount[] } {
  const simulated = emptyTally();
  const actual = emptyTally();
  const skipped = new Map<UnreplayableReason, number>();
  for (const verdict of verdicts) {
    if (verdict.simulated === null) {
      skipped.set(verdict.unreplayable!, (skipped.get(verdict.unreplayable!) ?? 0) + 1);
      continue;
    }
    countDecision(simulated, verdict.simulated, verdict.simulatedLoopWarning);
    countDecision(actual, verdict.recorded, verdict.recordedLoopWarning);
  }
  return { simulated, actual, unreplayable: [...skipped].map(([reason, count]) => ({ reason, count })) };
}
