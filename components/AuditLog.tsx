"use client";

import Link from "next/link";
import type { z } from "zod";
import type { AuditEntrySchema } from "@/lib/contract/operator";
import { auditDetailFields } from "@/lib/dashboard/audit-detail";
import { formatInstant } from "@/lib/dashboard/format-time";
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

function AuditDetail({ detail, base }: { detail: unknown; base: string }) {
  const fields = auditDetailFields(detail);
  if (fields.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="audit-detail">
      {fields.map((f) => (
        <div key={f.label}>
          <dt>{f.label}</dt>
          <dd title={f.full}>
            {f.label === "call id" ? (
              <Link href={`${base}/calls/${encodeURIComponent(f.value)}`}>
                <code>{f.value}</code>
              </Link>
            ) : f.code ? (
              <code>{f.value}</code>
            ) : (
              f.value
            )}
          </dd>
        </div>
      ))}
    </dl>
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
                  <th scope="col">Who, from where</th>
                  <th scope="col">Action, on what</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((entry) => (
                  <tr key={entry.id} data-testid="audit-row" data-action={entry.action}>
                    <td data-label="When" className="nowrap">
                      <time dateTime={entry.at}>{formatInstant(entry.at, "seconds")}</time>
                    </td>
                    <td data-label="Who">
                      {entry.actor.label ?? entry.actor.id ?? "—"} <span className="muted">({entry.actor.type})</span>
                      {entry.ip ? (
                        <div className="muted small" title={entry.userAgent ?? undefined}>
                          from {entry.ip}
                        </div>
                      ) : null}
                    </td>
                    <td data-label="Action">
                      <ToneBadge tone={actionTone(entry.action)}>{entry.action}</ToneBadge>
                      <div className="small">
                        <Target entry={entry} base={base} />
                      </div>
                    </td>
                    <td data-label="Detail">
                      <AuditDetail detail={entry.detail} base={base} />
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
