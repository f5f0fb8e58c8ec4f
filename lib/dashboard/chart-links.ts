import { CALL_DECISION_FILTERS } from "../contract/calls";
import { type DecisionGroupId, decisionsOf } from "./decision-groups";

const FILTERABLE = new Set<string>(CALL_DECISION_FILTERS);

/**
 * The calls behind a figure or a bar: its decisions, taken within its window (not the calls
 * first seen then: a replay at 10:05 of a call from 09:00 belongs to the 10:05 bar), on one tool
 * or every tool. Null when the calls list cannot filter by those decisions, so no link promises
 * calls it cannot show.
 */
export function callsBehind(projectBase: string, input: { decisions: readonly string[]; from: number | string; to: number | string; tool?: string }): string | null {
  if (input.decisions.length === 0 || !input.decisions.every((d) => FILTERABLE.has(d))) return null;
  const iso = (t: number | string) => (typeof t === "number" ? new Date(t).toISOString() : t);
  const search = new URLSearchParams();
  if (input.tool) search.set("tool", input.tool);
  search.set("decision", input.decisions.join(","));
  search.set("decidedFrom", iso(input.from));
  search.set("decidedTo", iso(input.to));
  return `${projectBase}/calls?${search}`;
}

export function groupCallsHref(projectBase: string, group: DecisionGroupId, window: { from: number | string; to: number | string; tool?: string }): string | null {
  return callsBehind(projectBase, { decisions: decisionsOf(group), ...window });
}
