"use client";

import { type FormEvent, useState } from "react";
import { ActionsTable } from "./ActionsTable";
import { ConfirmAction } from "./ConfirmAction";
import { QueryListStates } from "./QueryListStates";
import { EmptyState, ErrorState } from "./StateViews";
import { AddOutboundAllowlistEntrySchema } from "@/lib/contract/outbound";
import { validateForm } from "@/lib/dashboard/form-errors";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useAddAllowlistEntryMutation, useOutboundAllowlistQuery, useRemoveAllowlistEntryMutation } from "@/lib/dashboard/queries/use-outbound-allowlist-query";

/** The project's outbound allowlist (admin): add and remove hosts, IPs and CIDRs. */
export function OutboundAllowlistPanel({ projectId }: { projectId: string }) {
  const entries = useOutboundAllowlistQuery(projectId);
  const remove = useRemoveAllowlistEntryMutation(projectId);
  return (
    <section aria-labelledby="outbound-title" className="card stack" data-testid="outbound-allowlist-panel">
      <h2 id="outbound-title" style={{ margin: 0, fontSize: "1.2em" }}>
        Outbound allowlist
      </h2>
      <p className="muted" style={{ margin: 0 }}>
        Upstreams, MCP servers and webhooks are called only at these hosts. Redirects are followed only to them. Loopback, private, link-local and
        cloud metadata addresses are reached only through an IP or CIDR entry, even when a listed name resolves to one.
      </p>
      <AddEntryForm projectId={projectId} />
      <QueryListStates
        query={entries}
        items={(data) => data.entries}
        loading="Loading the allowlist…"
        empty={<EmptyState title="Nothing is allowed out">Add the hosts your upstreams live at, e.g. api.stripe.com.</EmptyState>}
      >
        {(list) => (
          <ActionsTable label="Outbound allowlist" columns={["Pattern", "Note", "Added", "By"]}>
            {list.map((entry) => (
              <tr key={entry.id} data-testid="outbound-entry-row">
                <td>
                  <code>{entry.pattern}</code>
                </td>
                <td>{entry.note ?? <span className="muted">—</span>}</td>
                <td style={{ whiteSpace: "nowrap" }}>{formatInstant(entry.createdAt)}</td>
                <td>{entry.createdBy ?? <span className="muted">—</span>}</td>
                <td>
                  <ConfirmAction
                    label="Remove"
                    ariaLabel={`Remove ${entry.pattern}`}
                    question={`Remove ${entry.pattern}? Calls to it are refused from the next one on.`}
                    confirmLabel="Remove entry"
                    pending={remove.isPending && remove.variables === entry.id}
                    onConfirm={() => remove.mutate(entry.id)}
                  />
                </td>
              </tr>
            ))}
          </ActionsTable>
        )}
      </QueryListStates>
      {remove.error ? <ErrorState error={remove.error} /> : null}
    </section>
  );
}

const PATTERN_HINT = "A host (api.stripe.com), *.domain, an IP or a CIDR, optionally with :port.";

function AddEntryForm({ projectId }: { projectId: string }) {
  const add = useAddAllowlistEntryMutation(projectId);
  const [pattern, setPattern] = useState("");
  const [note, setNote] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const checked = validateForm(AddOutboundAllowlistEntrySchema, { pattern, ...(note.trim() ? { note } : {}) }, { pattern: PATTERN_HINT });
  const error = submitted && !checked.ok ? checked.errors.pattern : undefined;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok) return;
    if (!(await add.mutateAsync(checked.data).catch(() => null))) return;
    setPattern("");
    setNote("");
    setSubmitted(false);
  }

  return (
    <form onSubmit={submit} className="stack" aria-label="Add to the outbound allowlist" noValidate style={{ gap: 4 }}>
      <div className="row">
        <label htmlFor="outbound-pattern">Host, IP or CIDR</label>
        <input
          id="outbound-pattern"
          value={pattern}
          maxLength={300}
          placeholder="api.stripe.com"
          onChange={(e) => setPattern(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "outbound-pattern-error" : undefined}
          style={{ flex: "1 1 200px", minWidth: 0 }}
        />
        <label htmlFor="outbound-note">Note</label>
        <input id="outbound-note" value={note} maxLength={500} placeholder="payments" onChange={(e) => setNote(e.target.value)} style={{ flex: "1 1 160px", minWidth: 0 }} />
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add"}
        </button>
      </div>
      {error ? (
        <span id="outbound-pattern-error" className="field-error">
          {error}
        </span>
      ) : null}
      {add.error ? <ErrorState error={add.error} /> : null}
    </form>
  );
}
