import type { DedupResponse } from "../contract/stats";

export interface Kpi {
  id: string;
  label: string;
  value: string;
  hint?: string;
  tone?: "warn";
}

const int = new Intl.NumberFormat("en-US");

export function formatRate(rate: number): string {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`;
}

/**
 * The overview's KPI tiles. Stats may be missing (a viewer cannot read them yet, or they are
 * loading): those tiles show a dash rather than a misleading zero.
 */
export function prepareKpis(input: { dedup: DedupResponse | undefined; pendingApprovals: number | undefined; openStorms: number | undefined }): Kpi[] {
  const t = input.dedup?.total;
  const n = (v: number | undefined) => (v === undefined ? "—" : int.format(v));
  return [
    { id: "calls", label: "Calls", value: n(t?.begins), hint: "begin decisions" },
    { id: "executions", label: "Executions", value: n(t?.executions), hint: "execute + verify" },
    { id: "dedup-hits", label: "Dedup hits", value: n(t?.dedupHits), hint: "replay, in progress, refused" },
    { id: "dedup-rate", label: "Dedup rate", value: t ? formatRate(t.dedupRate) : "—" },
    { id: "pending", label: "Pending approvals", value: n(input.pendingApprovals), tone: input.pendingApprovals ? "warn" : undefined },
    { id: "storms", label: "Open storms", value: n(input.openStorms), tone: input.openStorms ? "warn" : undefined },
  ];
}
