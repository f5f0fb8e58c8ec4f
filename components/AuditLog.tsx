"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import type { z } from "zod";
import type { AuditEntrySchema } from "@/lib/contract/operator";
import { auditDetailFields, splitPolicyChanges } from "@/lib/dashboard/audit-detail";
import { type AuditFilters, auditFiltersFromSearch, auditFiltersToSearch } from "@/lib/dashboard/audit-filters";
import { projectApi } from "@/lib/dashboard/fetch-json";
import { policyLabel } from "@/lib/dashboard/policy-labels";
import { AuditFilterForm } from "./AuditFilterForm";
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
  if (type === "run")
    return (
      <span>
        <span className="muted">run</span> <Link href={`${base}/runs/${encodeURIComponent(id)}`}>{id}</Link>
      </span>
    );
  if (type === "policy")
    return (
      <span>
        <span className="muted">policy of</span>{" "}
        <Link href={`${base}/tools/${encodeURIComponent(id)}`}>
          <code>{id}</code>
        </Link>
      </span>
    );
  return (
    <span>
      <span className="muted">{type.replace(/_/g, " ")}</span> <code>{id}</code>
    </span>
  );
}

function AuditDetail({ detail, base }: { detail: unknown; base: string }) {
  const { changes, rest } = splitPolicyChanges(detail);
  const fields = auditDetailFields(rest);
  if (fields.length === 0 && changes.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {fields.length > 0 ? <DetailFields fields={fields} base={base} /> : null}
      {changes.length > 0 ? (
        <ul className="audit-changes" aria-label="Fields changed" data-testid="audit-changes">
          {changes.map((c) => (
            <li key={c.path}>
              <span>{policyLabel(c.path).label}</span>: <code>{showValue(c.before)}</code> → <code>{showValue(c.after)}</code>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

const showValue = (v: unknown) => (v === null || v === undefined ? "inherited" : Array.isArray(v) ? v.join(", ") || "none" : String(v));

function DetailFields({ fields, base }: { fields: ReturnType<typeof auditDetailFields>; base: string }) {
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

/** The project's append-only audit log: who (user, agent key or policy), what, to which, when, from where; filtered in the URL, exported as CSV. */
export function AuditLog() {
  const { projectId } = useProject();
  const pathname = usePathname();
  const search = useSearchParams();
  const filters = auditFiltersFromSearch(search);
  const searchKey = auditFiltersToSearch(filters).toString();
  const audit = useAuditQuery(projectId, filters);
  const rows = audit.data?.pages.flatMap((page) => page.entries) ?? [];
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const exportHref = `${projectApi(projectId).operator}/audit/export${searchKey ? `?${searchKey}` : ""}`;
  function apply(next: AuditFilters) {
    const query = auditFiltersToSearch(next).toString();
    window.history.pushState(null, "", query ? `${pathname}?${query}` : pathname);
  }
  return (
    <div className="stack">
      <div className="row spread">
        <h1 style={{ margin: 0 }}>Audit log</h1>
        <a href={exportHref} download className="button-link" data-testid="audit-export">
          Export CSV
        </a>
      </div>
      <p className="muted" style={{ margin: 0 }}>
        Every policy change, resend request and decision, token use, eviction, resolution, key and member change. Nothing here can be edited or deleted.
      </p>
      <AuditFilterForm key={searchKey} value={filters} onApply={apply} />
      {audit.error && !audit.data ? (
        <ErrorState error={audit.error} onRetry={() => audit.refetch()} />
      ) : audit.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : rows.length === 0 ? (
        searchKey ? (
          <EmptyState title="No entries match these filters">
            <button type="button" onClick={() => apply({})}>
              Clear the filters
            </button>
          </EmptyState>
        ) : (
          <EmptyState title="Nothing audited yet">Operator actions and resend requests appear here as they happen.</EmptyState>
        )
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
                      {entry.actor.name ?? entry.actor.label ?? entry.actor.id ?? "—"} <span className="muted">({entry.actor.type === "agent" ? "API key" : entry.actor.type})</span>
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
