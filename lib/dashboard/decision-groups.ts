/**
 * Every begin decision belongs to exactly one group, so the overview's figures and its stacked
 * chart add up to the call count. A decision this dashboard does not know yet (a later contract
 * addition) lands in "other" rather than in no figure at all.
 */
export const DECISION_GROUPS = [
  { id: "executions", label: "Executions", decisions: ["execute", "verify"], hint: "execute + verify: the tool ran", color: "var(--exec)" },
  // DEDUP_HIT_DECISIONS (lib/core/rollup-tally.ts): the same three the stats count as dedup hits.
  { id: "dedupHits", label: "Dedup hits", decisions: ["replay", "in_progress", "refused"], hint: "replay, in progress, refused", color: "var(--dedup)" },
  { id: "conflicts", label: "Conflicts", decisions: ["conflict"], hint: "same key, other args, rejected", color: "var(--conflict)" },
  { id: "approvalRequired", label: "Approval required", decisions: ["approval_required"], hint: "a resend waits for a human", color: "var(--approval)" },
  { id: "previewRequired", label: "Preview required", decisions: ["preview_required"], hint: "a dry run (and maybe an operator's approval) comes first", color: "var(--preview)" },
  { id: "blocked", label: "Blocked", decisions: ["blocked"], hint: "the loop detector or the run's budget stopped a call", color: "var(--blocked)" },
  { id: "other", label: "Other", decisions: [], hint: "decisions this dashboard does not know", color: "var(--muted)" },
] as const;

export type DecisionGroupId = (typeof DECISION_GROUPS)[number]["id"];
export type GroupCounts = Record<DecisionGroupId, number>;

export const GROUP_IDS: DecisionGroupId[] = DECISION_GROUPS.map((g) => g.id);

const GROUP_OF = new Map<string, DecisionGroupId>(DECISION_GROUPS.flatMap((g) => g.decisions.map((d) => [d, g.id] as const)));

export function groupOf(decision: string): DecisionGroupId {
  return GROUP_OF.get(decision) ?? "other";
}

export function decisionsOf(id: DecisionGroupId): readonly string[] {
  return DECISION_GROUPS.find((g) => g.id === id)!.decisions;
}

export function emptyCounts(): GroupCounts {
  return { executions: 0, dedupHits: 0, conflicts: 0, approvalRequired: 0, previewRequired: 0, blocked: 0, other: 0 };
}

export function sumCounts(counts: GroupCounts): number {
  return GROUP_IDS.reduce((sum, id) => sum + counts[id], 0);
}
