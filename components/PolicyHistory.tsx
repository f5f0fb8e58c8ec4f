"use client";

import { type FormEvent, useState } from "react";
import { formatInstant } from "@/lib/dashboard/format-time";
import { policyLabel } from "@/lib/dashboard/policy-labels";
import { usePolicyHistoryQuery, useRestorePolicyMutation } from "@/lib/dashboard/queries/use-policies-query";
import { EmptyState, ErrorState, Loading } from "./StateViews";

const show = (v: unknown) => (v === undefined || v === null ? "inherited" : Array.isArray(v) ? v.join(", ") || "none" : String(v));

/** A tool's policy revisions, newest first, with author, reason and field-by-field diff; any older one can be restored (as a new revision). */
export function PolicyHistory({ projectId, tool }: { projectId: string; tool: string }) {
  const history = usePolicyHistoryQuery(projectId, tool);
  const restore = useRestorePolicyMutation(projectId, tool);
  return (
    <section aria-labelledby="history-title" className="stack">
      <h2 id="history-title">History</h2>
      {restore.data ? (
        <p role="status" className="card">
          Restored: the policy is now revision v{restore.data.revision.version}
          {restore.data.revision.restoredFrom !== null ? ` (as of v${restore.data.revision.restoredFrom})` : ""}.
        </p>
      ) : null}
      {restore.error ? <ErrorState error={restore.error} /> : null}
      {history.error ? (
        <ErrorState error={history.error} onRetry={() => history.refetch()} />
      ) : history.isPending ? (
        <Loading />
      ) : history.data.revisions.length === 0 ? (
        <EmptyState title="No revisions yet">This tool has never had its own policy.</EmptyState>
      ) : (
        <ol className="stack" style={{ paddingLeft: 20, margin: 0 }} data-testid="policy-history">
          {history.data.revisions.map((r, i) => (
            <li key={r.version} data-testid="policy-revision" data-version={r.version}>
              <strong>v{r.version}</strong> by {r.author} at {formatInstant(r.at, "seconds")} — {r.reason}
              {r.restoredFrom !== null ? ` (restored v${r.restoredFrom})` : ""}
              {i === 0 ? <span className="badge" style={{ marginLeft: 8 }}>current</span> : null}
              <ul>
                {r.changes.map((c) => (
                  <li key={c.path}>
                    {policyLabel(c.path).label}: <code>{show(c.before)}</code> → <code>{show(c.after)}</code>
                  </li>
                ))}
              </ul>
              {i > 0 ? <RestoreRevision version={r.version} pending={restore.isPending} onRestore={(reason) => restore.mutate({ version: r.version, reason })} /> : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** "Restore v3": asks for the reason (kept in the history and the audit log), then restores. */
function RestoreRevision({ version, pending, onRestore }: { version: number; pending: boolean; onRestore: (reason: string) => void }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [touched, setTouched] = useState(false);
  const id = `restore-reason-${version}`;
  const missing = reason.trim() === "";
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)} disabled={pending}>
        Restore v{version}
      </button>
    );
  }
  function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!missing) onRestore(reason.trim());
  }
  return (
    <form onSubmit={submit} className="stack" style={{ gap: 6, maxWidth: 520 }} aria-label={`Restore revision ${version}`}>
      <label htmlFor={id}>Why restore v{version}? (kept in the history and the audit log)</label>
      <input id={id} value={reason} onChange={(e) => setReason(e.target.value)} aria-invalid={touched && missing} aria-describedby={touched && missing ? `${id}-error` : undefined} />
      {touched && missing ? (
        <span id={`${id}-error`} className="field-error">
          Say why the old policy comes back.
        </span>
      ) : null}
      <div className="row">
        <button type="submit" className="primary" disabled={pending}>
          Restore v{version} now
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
