import type { DecisionTally } from "../contract/admin-policies";

export interface SimulationRow {
  key: keyof DecisionTally;
  label: string;
  actual: number;
  draft: number;
  /** draft − actual: what saving would change for the same calls. */
  change: number;
}

const LABELS: Record<keyof DecisionTally, string> = {
  executed: "Executed",
  deduped: "Deduplicated",
  refused: "Refused",
  conflicts: "Conflicts",
  blocked: "Blocked",
  approvalRequired: "Approval required",
  loopWarnings: "Loop warnings",
  rejected: "Rejected (400)",
};

/** Rows of the before/after table, in a fixed order; rows that are zero on both sides are left out. */
export function prepareSimulationRows(actual: DecisionTally, draft: DecisionTally): SimulationRow[] {
  return (Object.keys(LABELS) as (keyof DecisionTally)[])
    .map((key) => ({ key, label: LABELS[key], actual: actual[key], draft: draft[key], change: draft[key] - actual[key] }))
    .filter((row) => row.actual !== 0 || row.draft !== 0);
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
