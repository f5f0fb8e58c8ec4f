"use client";

import Link from "next/link";
import type { CallFilters } from "@/lib/dashboard/call-filters";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useDecisionsQuery } from "@/lib/dashboard/queries/use-decisions-query";
import { TableWrap } from "./TableWrap";

/**
 * Under a figure's click-through (decisions in a window): figures count decisions, the list below
 * shows calls. This says how many decisions the figure counted, and lists those that have no call
 * record (a loop block before any record), so every counted decision can be reached (issue #38).
 */
export function DecisionsBehind({ projectId, filters }: { projectId: string; filters: CallFilters }) {
  const input =
    filters.decision && filters.decidedFrom && filters.decidedTo
      ? { decision: filters.decision, decidedFrom: filters.decidedFrom, decidedTo: filters.decidedTo, tool: filters.tool }
      : null;
  const decisions = useDecisionsQuery(projectId, input);
  if (!input || !decisions.data) return null;
  const { total, withoutRecord, events } = decisions.data;
  const orphans = events.filter((event) => event.callId === null);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <section className="stack" aria-labelledby="decisions-behind-title" data-testid="decisions-behind" data-total={total} data-without-record={withoutRecord}>
      <p id="decisions-behind-title" style={{ margin: 0 }}>
        <strong>{total.toLocaleString("en")}</strong> decision{total === 1 ? "" : "s"} ({filters.decision}) in this window: the figure counts decisions, the list
        below shows the calls they were about.
        {withoutRecord > 0 ? ` ${withoutRecord.toLocaleString("en")} of them never created a call record (blocked before any call) and are listed here.` : ""}
      </p>
      {orphans.length > 0 ? (
        <TableWrap label="Decisions without a call record">
          <table className="data" data-testid="decisions-without-record">
            <thead>
              <tr>
                <th scope="col">Decided</th>
                <th scope="col">Tool</th>
                <th scope="col">Run</th>
                <th scope="col">Decision</th>
              </tr>
            </thead>
            <tbody>
              {orphans.map((event) => (
                <tr key={event.id} data-testid="orphan-decision">
                  <td>{formatInstant(event.at, "seconds")}</td>
                  <td>{event.tool}</td>
                  <td>
                    <Link href={`${base}/runs/${encodeURIComponent(event.runId)}`}>{event.runId}</Link>
                  </td>
                  <td>{event.decision}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </section>
  );
}
