import Link from "next/link";
import { DECISION_GROUPS, type DecisionGroupId } from "@/lib/dashboard/decision-groups";
import type { DecisionPoint } from "@/lib/dashboard/prepare-timeseries";
import { TableWrap } from "./TableWrap";

/**
 * The stacked chart's numbers, for readers who want figures (and keyboards: each count links to
 * the calls behind it, like a bar click). Only buckets with calls are listed.
 */
export function DecisionsTable({ points, groups, hrefOf }: { points: DecisionPoint[]; groups: DecisionGroupId[]; hrefOf: (group: DecisionGroupId, p: DecisionPoint) => string | null }) {
  const shown = DECISION_GROUPS.filter((g) => groups.includes(g.id));
  const rows = points.filter((p) => p.begins > 0).reverse();
  return (
    <details className="chart-numbers">
      <summary>The numbers behind the chart ({rows.length} bucket{rows.length === 1 ? "" : "s"} with calls)</summary>
      <TableWrap label="Calls by decision, per bucket">
        <table className="data" data-testid="decisions-table">
          <caption className="muted" style={{ textAlign: "left" }}>
            Calls per bucket and decision, newest first (UTC)
          </caption>
          <thead>
            <tr>
              <th scope="col">Bucket</th>
              {shown.map((g) => (
                <th scope="col" key={g.id}>
                  {g.label}
                </th>
              ))}
              <th scope="col">Calls</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.at} data-testid="decisions-row">
                <td className="nowrap">{new Date(p.at).toISOString().slice(0, 16).replace("T", " ")}</td>
                {shown.map((g) => {
                  const href = p[g.id] > 0 ? hrefOf(g.id, p) : null;
                  return (
                    <td key={g.id} data-group={g.id}>
                      {href ? <Link href={href}>{p[g.id]}</Link> : p[g.id]}
                    </td>
                  );
                })}
                <td data-group="total">{p.begins}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </details>
  );
}
