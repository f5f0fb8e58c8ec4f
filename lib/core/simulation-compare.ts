import { type ArgsFingerprinter, ephemeralFingerprinter } from "./fingerprint";
import type { ToolPolicy } from "./policy";
import { simulatePolicy } from "./simulate-policy";
import type { LedgerEntry, PastBegin } from "./simulation-ledger";
import { type BeginVerdict, type DecisionTally, type UnreplayableCount, countDecision, emptyTally } from "./simulation-tally";

/** Where the recorded decisions are not what the policy in force, replayed, decides: said to the operator, never hidden. */
export interface SimulationDrift {
  /** Sampled calls the policy in force, replayed, decides otherwise than they were decided. */
  replayedDifferently: number;
  /** Sampled calls decided under another revision of the policy than the one in force. */
  otherRevision: number;
  /** Those revisions, ascending. */
  revisions: number[];
}

export interface DraftPrediction {
  /** What the draft decides, calls replayed in order. */
  simulated: DecisionTally;
  /** What the policy in force decides over the same calls, replayed the same way: what `simulated` is compared with. */
  baseline: DecisionTally;
  /** What was recorded for the same calls (in shadow mode: what enforce would have answered). */
  actual: DecisionTally;
  unreplayable: UnreplayableCount[];
  assumedOutcomes: number;
  drift: SimulationDrift;
}

/**
 * A draft's prediction, compared with the policy in force replayed over the same ledger, not with
 * the recorded decisions. Replay is deterministic, so a draft equal to the policy in force
 * predicts no change on any history (identity, issue #38): whatever the replay cannot reproduce
 * (calls decided under an older revision, timings of concurrent duplicates the ledger's order
 * does not keep) is the same on both sides, and reported as drift instead of as a change.
 */
export function predictDraft(
  entries: readonly LedgerEntry[],
  draft: ToolPolicy,
  inForce: ToolPolicy,
  inForceRevision: number | null,
  fingerprint: ArgsFingerprinter = ephemeralFingerprinter(),
): DraftPrediction {
  const underDraft = simulatePolicy(entries, draft, inForce, fingerprint);
  const underCurrent = samePolicy(draft, inForce) ? underDraft : simulatePolicy(entries, inForce, inForce, fingerprint);
  const counted = entries.filter((entry): entry is PastBegin => entry.type === "begin" && entry.counted);
  const simulated = emptyTally();
  const baseline = emptyTally();
  const actual = emptyTally();
  const skipped = new Map<string, number>();
  const revisions = new Set<number>();
  let replayedDifferently = 0;
  let otherRevision = 0;
  underDraft.verdicts.forEach((verdict, i) => {
    const current: BeginVerdict = underCurrent.verdicts[i]!;
    // A call either side cannot replay is left out of every column, so the columns cover the same calls.
    const reason = verdict.simulated === null ? verdict.unreplayable : current.simulated === null ? current.unreplayable : null;
    if (reason !== null || verdict.simulated === null || current.simulated === null) {
      const why = reason ?? "unknown";
      skipped.set(why, (skipped.get(why) ?? 0) + 1);
      return;
    }
    countDecision(simulated, verdict.simulated, verdict.simulatedLoopWarning);
    countDecision(baseline, current.simulated, current.simulatedLoopWarning);
    countDecision(actual, verdict.recorded, verdict.recordedLoopWarning);
    if (current.simulated !== verdict.recorded || current.simulatedLoopWarning !== verdict.recordedLoopWarning) replayedDifferently++;
    const revision = counted[i]?.revision;
    if (inForceRevision !== null && revision !== undefined && revision !== inForceRevision) {
      otherRevision++;
      revisions.add(revision);
    }
  });
  return {
    simulated,
    baseline,
    actual,
    unreplayable: [...skipped].map(([reason, count]) => ({ reason, count })) as UnreplayableCount[],
    assumedOutcomes: underDraft.assumedOutcomes,
    drift: { replayedDifferently, otherRevision, revisions: [...revisions].sort((a, b) => a - b) },
  };
}

/** Policies are plain JSON: equal content, equal policy. */
function samePolicy(a: ToolPolicy, b: ToolPolicy): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
