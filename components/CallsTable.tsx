import Link from "next/link";
import type { CallSummary } from "@/lib/contract/calls";
import { formatInstant } from "@/lib/dashboard/format-time";
import type { SortDir, SortState } from "@/lib/dashboard/table-sort";
import { DecisionBadge } from "./DecisionBadge";
import { SortableHeader } from "./SortableHeader";
import { TableWrap } from "./TableWrap";

interface Props {
  projectId: string;
  calls: CallSummary[];
  sort: SortState | null;
  onSort: (column: string, firstDir?: SortDir) => void;
}

/** A page of calls: each row opens the call; the run links to its timeline. Stacked cards on a phone. */
export function CallsTable({ projectId, calls, sort, onSort }: Props) {
  const header = (column: string, label: string, firstDir: SortDir = "asc") => <SortableHeader column={column} label={label} sort={sort} onSort={onSort} firstDir={firstDir} />;
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <TableWrap label="Calls">
      <table className="data stacked" data-testid="calls-table">
        <thead>
          <tr>
            {header("firstSeen", "First seen", "desc")}
            {header("tool", "Tool")}
            {header("status", "Status")}
            <th scope="col" title="Each call's latest begin: not sortable (the server sorts the whole list, and no index holds it)">
              <span className="sort-header static">Last decision</span>
            </th>
            {header("run", "Run / step")}
            {header("agent", "Agent")}
            {header("attempts", "Attempts", "desc")}
            {header("key", "Key")}
          </tr>
        </thead>
        <tbody>
          {calls.map((c) => (
            <tr key={c.callId} data-testid="call-row" data-call-id={c.callId}>
              <td data-label="First seen" className="nowrap">
                <time dateTime={c.createdAt}>{formatInstant(c.createdAt, "seconds")}</time>
              </td>
              <td data-label="Tool">
                <Link href={`${base}/calls/${encodeURIComponent(c.callId)}`} aria-label={`Open call ${c.callId} (${c.tool})`}>
                  {c.tool}
                </Link>
              </td>
              <td data-label="Status">
                <DecisionBadge decision={c.status} />
              </td>
              <td data-label="Last decision">{c.lastDecision ? <DecisionBadge decision={c.lastDecision.decision} /> : <span className="muted">—</span>}</td>
              <td data-label="Run / step">
                <Link href={`${base}/runs/${encodeURIComponent(c.runId)}`}>{c.runId}</Link>
                {c.stepId ? <span className="muted"> / {c.stepId}</span> : null}
              </td>
              <td data-label="Agent">{c.agentId ?? <span className="muted">root</span>}</td>
              <td data-label="Attempts">
                {c.attempts}
                {c.replays > 0 ? <span className="muted"> · {c.replays} replays</span> : null}
                {c.generation > 1 ? <span className="muted"> · gen {c.generation}</span> : null}
              </td>
              <td data-label="Key">
                <code className="mono-short" title={c.key}>
                  {c.key.length > 14 ? `${c.key.slice(0, 12)}…` : c.key}
                </code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
