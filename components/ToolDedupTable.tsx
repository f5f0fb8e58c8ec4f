import Link from "next/link";
import { formatRate } from "@/lib/dashboard/prepare-kpis";
import type { ToolSparkline } from "@/lib/dashboard/prepare-tool-sparklines";
import { FIGURE_DEFINITIONS } from "@/lib/dashboard/figure-definitions";
import { Sparkline } from "./Sparkline";
import { TableWrap } from "./TableWrap";

const int = new Intl.NumberFormat("en-US");

/** Dedup rate per tool over the overview's range, each with its sparkline; a tool links to its calls. */
export function ToolDedupTable({ tools, callsHref, rangeLabel }: { tools: ToolSparkline[]; callsHref: (tool: string) => string; rangeLabel: string }) {
  // One scale for every row: a sparkline's height compares with its neighbours' (the busiest bucket of any tool is full height).
  const peak = Math.max(1, ...tools.flatMap((t) => t.points.map((p) => p.calls)));
  return (
    <TableWrap label="Dedup rate per tool">
      <table className="data" data-testid="tool-dedup-table">
        <caption className="muted" style={{ textAlign: "left" }}>
          Calls (blue) and dedup hits (orange) per tool, {rangeLabel.toLowerCase()}; every trend on one scale (full height: {int.format(peak)} calls in a bucket)
        </caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Calls</th>
            <th scope="col" title={FIGURE_DEFINITIONS.dedupHits}>
              Dedup hits
            </th>
            <th scope="col">Dedup rate</th>
            <th scope="col">Trend</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((t) => (
            <tr key={t.tool} data-testid="tool-dedup-row">
              <td>
                <Link href={callsHref(t.tool)}>
                  <code>{t.tool}</code>
                </Link>
              </td>
              <td>{int.format(t.calls)}</td>
              <td>{int.format(t.dedupHits)}</td>
              <td>
                <strong>{formatRate(t.dedupRate)}</strong>
              </td>
              <td style={{ paddingTop: 2, paddingBottom: 2 }}>
                <Sparkline points={t.points} max={peak} label={`${t.tool}: ${t.calls} calls, ${t.dedupHits} dedup hits, ${rangeLabel.toLowerCase()}`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
