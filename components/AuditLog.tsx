"use client";

import Link from "next/link";
import type { z } from "zod";
import type { AuditEntrySchema } from "@/lib/contract/operator";
import { formatUtc } from "@/lib/dashboard/ledger-labels";
import { useAuditQuery } from "@/lib/dashboard/queries/use-audit-query";
import { ToneBadge } from "./DecisionBadge";
import { LoadMoreRow } from "./LoadMoreRow";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import "./explorer.css";
import { TableWrap } from "./TableWrap";

type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** Refusals and revocations stand out; everything else is an ordinary change. */
function actionTone(action: string) {
  if (/refused|revoked|denied|evicted|removed/.test(action)) return "danger" as const;
  if (/approved|allowed|used|created|added|resolved/.test(action)) return "ok" as const;
  return "neutral" as const;
}

function Target({ entry, base }: { entry: AuditEntry; base: string }) {
  const { type, id } = entry.target;
  if (type === "call") return <Link href={`${base}/calls/${encodeURIComponent(id)}`}>{id}</Link>;
  return (
    <span>
      <span className="muted">{type.replace(/_/g, " ")}</span> <code>{id}</code>
    </span>
  );
}

/** The project's append-only audit log: who (user, agent key or policy), what, to which, when, from where. */
export function AuditLog() {
  const { projectId } = useProject();
  const audit = useAuditQuery(projectId);
  const rows = audit.data?.pages.flatMap((page) => page.entries) ?? [];
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <div className="stack">
      <h1>Audit log</h1>
      <p className="muted">Every resend request and decision, token use, eviction, resolution, key and member change. Nothing here can be edited or deleted.</p>
      {audit.error && !audit.data ? (
        <ErrorState error={audit.error} onRetry={() => audit.refetch()} />
      ) : audit.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : rows.length === 0 ? (
        <EmptyState title="Nothing audited yet">Operator actions and resend requests appear here as they happen.</EmptyState>
      ) : (
        <>
          <TableWrap label="Audit log">
            <table className="data stacked" data-testid="audit-table">
              <thead>
                <tr>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">Detail</th>
                  <th scope="col">From</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((entry) => (
                  <tr key={entry.id} data-testid="audit-row" data-action={entry.action}>
                    <td data-label="When" className="nowrap">
                      <time dateTime={entry.at}>{formatUtc(entry.at)}</time>
                    </td>
                    <td data-label="Who">
                      {entry.actor.label ?? entry.actor.id ?? "—"} <span className="muted">({entry.actor.type})</span>
                    </td>
                    <td data-label="Action">
                      <ToneBadge tone={actionTone(entry.action)}>{entry.action}</ToneBadge>
                    </td>
                    <td data-label="Target">
                      <Target entry={entry} base={base} />
                    </td>
                    <td data-label="Detail">
                      {entry.detail === null ? <span className="muted">—</span> : <code className="audit-detail">{JSON.stringify(entry.detail)}</code>}
                    </td>
                    <td data-label="From" className="muted" title={entry.userAgent ?? undefined}>
                      {entry.ip ?? "—"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <LoadMoreRow query={audit} end="The beginning of the log." />
        </>
      )}
    </div>
  );
}
