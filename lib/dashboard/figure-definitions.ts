import { DECISION_GROUPS } from "./decision-groups";

/**
 * One vocabulary of decisions across every page (issue #38 §1): each figure's name means the same
 * decisions wherever it appears, and its definition is what the page shows on hover.
 */
const group = (id: (typeof DECISION_GROUPS)[number]["id"]) => {
  const g = DECISION_GROUPS.find((candidate) => candidate.id === id)!;
  return `${g.label}: ${g.hint} (${g.decisions.join(", ")})`;
};

export const FIGURE_DEFINITIONS = {
  calls: "Calls: every begin decision in the range, whatever it was",
  executions: group("executions"),
  dedupHits: group("dedupHits"),
  conflicts: group("conflicts"),
  approvalRequired: group("approvalRequired"),
  previewRequired: group("previewRequired"),
  blocked: group("blocked"),
  dedupRate: "Dedup rate: dedup hits / calls",
  stormHits: "Storm hits: dedup hits (replay, in_progress, refused) of the tool in the storm's windows; duplicates the loop detector blocked are counted apart as blocked",
} as const;
