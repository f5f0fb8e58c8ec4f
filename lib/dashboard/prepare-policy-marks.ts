/** A policy revision as a chart marks it: when, which tool (`*`: the project's default layer), which version. */
export interface PolicyChange {
  at: number;
  tool: string;
  version: number;
}

/** A mark on a chart's time axis: the bucket the change fell in, and its label (empty: another mark of the bucket carries it). */
export interface ChartMark {
  at: number;
  label: string;
}

/**
 * The policy changes of a range as marks on charts bucketed by `points`: each change on the bucket
 * it fell in (or its own instant when no bucket holds it). One mark per change, but the changes of
 * one bucket share one label on the first of them ("create_ticket v2, search_kb v3"): labels drawn at
 * one x would print over each other. `withTool` false: the labels name versions only (one tool's page).
 */
export function policyMarks(changes: readonly PolicyChange[], points: readonly { at: number; end: number }[], withTool = true): ChartMark[] {
  const placed = [...changes]
    .sort((a, b) => a.at - b.at || a.version - b.version)
    .map((c) => ({ ...c, bucket: points.find((p) => c.at >= p.at && c.at < p.end)?.at ?? c.at }));
  const name = (c: PolicyChange) => (withTool ? `${c.tool === "*" ? "project default" : c.tool} v${c.version}` : `v${c.version}`);
  return placed.map((mark, i) => {
    const first = placed.findIndex((other) => other.bucket === mark.bucket) === i;
    const label = first ? placed.filter((other) => other.bucket === mark.bucket).map(name).join(", ") : "";
    return { at: mark.bucket, label };
  });
}

/** The changes inside [from, to) (ISO instants). */
export function changesIn<T extends { at: number }>(changes: readonly T[], from: string, to: string): T[] {
  const start = Date.parse(from);
  const end = Date.parse(to);
  return changes.filter((c) => c.at >= start && c.at < end);
}
