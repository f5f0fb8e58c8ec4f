import type { DedupResponse } from "../contract/stats";
import { DECISION_GROUPS, type GroupCounts } from "./decision-groups";

export interface Kpi {
  id: string;
  label: string;
  value: string;
  hint?: string;
  tone?: "warn";
  /** A decision group's tile: its share of the calls, and where the stacked chart draws it. */
  group?: { id: string; color: string };
}

const int = new Intl.NumberFormat("en-US");

export function formatRate(rate: number): string {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`;
}

/** The range's begins per decision group; what the named figures leave over is "other", so the groups always add up to the calls. */
export function groupTotals(total: DedupResponse["total"]): GroupCounts {
  const known = { executions: total.executions, dedupHits: total.dedupHits, conflicts: total.conflicts, approvalRequired: total.approvalRequired, previewRequired: total.previewRequired ?? 0, blocked: total.blocked };
  const named = Object.values(known).reduce((sum, n) => sum + n, 0);
  return { ...known, other: Math.max(0, total.begins - named) };
}

/**
 * The overview's KPI tiles: the calls, then one tile per decision group (they add up to the
 * calls; "other" only when a decision this dashboard does not know occurred), the dedup rate,
 * pending approvals and open storms. Stats may be missing (loading, or not readable): those tiles
 * show a dash rather than a misleading zero.
 */
export function prepareKpis(input: { dedup: DedupResponse | undefined; pendingApprovals: number | undefined; openStorms: number | undefined }): Kpi[] {
  const t = input.dedup?.total;
  const n = (v: number | undefined) => (v === undefined ? "—" : int.format(v));
  const groups = t ? groupTotals(t) : undefined;
  const groupTiles: Kpi[] = DECISION_GROUPS.filter((g) => g.id !== "other" || (groups?.other ?? 0) > 0).map((g) => ({
    // kebab-case like the other tiles' ids: kpi-dedup-hits, kpi-approval-required, …
    id: g.id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
    label: g.label,
    value: n(groups?.[g.id]),
    hint: t && t.begins > 0 && groups ? `${formatRate(groups[g.id] / t.begins)} · ${g.hint}` : g.hint,
    group: { id: g.id, color: g.color },
  }));
  return [
    { id: "calls", label: "Calls", value: n(t?.begins), hint: "every begin decision" },
    ...groupTiles,
    { id: "dedup-rate", label: "Dedup rate", value: t ? formatRate(t.dedupRate) : "—", hint: "dedup hits / calls" },
    { id: "pending", label: "Pending approvals", value: n(input.pendingApprovals), tone: input.pendingApprovals ? "warn" : undefined },
    { id: "storms", label: "Open storms", value: n(input.openStorms), tone: input.openStorms ? "warn" : undefined },
  ];
}
