import type { DecisionTally } from "../contract/admin-policies";

export interface SimulationRow {
  key: keyof DecisionTally;
  label: string;
  /** As recorded. */
  actual: number;
  /** The policy in force, replayed: what the draft is compared with. */
  current: number;
  draft: number;
  /** draft − current: what saving would change for the same calls (0 for a draft equal to the policy in force). */
  change: number;
}

const LABELS: Record<keyof DecisionTally, string> = {
  executed: "Executed",
  deduped: "Deduplicated",
  refused: "Refused",
  conflicts: "Conflicts",
  blocked: "Blocked",
  approvalRequired: "Approval required",
  previewRequired: "Preview required",
  loopWarnings: "Loop warnings",
  rejected: "Rejected (400)",
};

/**
 * Rows of the before/after table, in a fixed order; rows that are zero everywhere are left out.
 * The change is against the policy in force replayed (`current`), never against the record:
 * what the replay cannot reproduce is the same on both sides (see describeDrift).
 */
export function prepareSimulationRows(actual: DecisionTally, draft: DecisionTally, current: DecisionTally = actual): SimulationRow[] {
  return (Object.keys(LABELS) as (keyof DecisionTally)[])
    .map((key) => ({ key, label: LABELS[key], actual: actual[key] ?? 0, current: current[key] ?? 0, draft: draft[key] ?? 0, change: (draft[key] ?? 0) - (current[key] ?? 0) }))
    .filter((row) => row.actual !== 0 || row.draft !== 0 || row.current !== 0);
}

/**
 * Where the record and the policy in force, replayed, part: calls decided under other revisions,
 * and calls the replay decides otherwise (concurrent timings, shadow mode). Said, so the operator
 * knows what "Decided" is compared with.
 */
export function describeDrift(drift: { replayedDifferently: number; otherRevision: number; revisions: number[] }, revision: number | null): string[] {
  const calls = (n: number) => `${n.toLocaleString("en")} ${n === 1 ? "call" : "calls"}`;
  const lines: string[] = [];
  if (drift.otherRevision > 0) {
    const list = drift.revisions.map((r) => `v${r}`).join(", ");
    lines.push(`${calls(drift.otherRevision)} of the sample were decided under an older revision of this policy (${list}), not the one in force${revision === null ? "" : ` (v${revision})`}.`);
  }
  if (drift.replayedDifferently > 0) {
    lines.push(`${calls(drift.replayedDifferently)} replay differently under the policy in force than they were decided. The change column compares the draft with the policy in force replayed, so these are not counted as changes.`);
  }
  return lines;
}

/** "+3", "−2", "no change": the sign is the point, so it is always written out. */
export function formatChange(change: number): string {
  if (change === 0) return "no change";
  return change > 0 ? `+${change}` : `−${-change}`;
}

/**
 * What the simulator could not know, in words: calls it left out of both columns, by reason, and
 * calls it had to assume an outcome for. The table is only as good as these lines say.
 */
export function describeSimulationGaps(unreplayable: readonly { reason: string; count: number }[], assumedOutcomes: number): string[] {
  const calls = (n: number) => `${n.toLocaleString("en")} ${n === 1 ? "call" : "calls"}`;
  const lines = unreplayable.map(({ reason, count }) => `${calls(count)} could not be replayed: ${reason}. They are left out of both columns.`);
  if (assumedOutcomes > 0) {
    lines.push(`${calls(assumedOutcomes)} would run under the draft but never ran: each is assumed to end like the call it was deduplicated against.`);
  }
  return lines;
}
