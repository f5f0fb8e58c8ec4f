"use client";

import { type FormEvent, useState } from "react";
import { type AuditFilters, KNOWN_ACTIONS } from "@/lib/dashboard/audit-filters";
import { fromUtcInput, toUtcInput } from "@/lib/dashboard/call-filters";
import "./explorer.css";

/** The audit log's filters: who (an email or API key, by its first letters), which action (a prefix), when (UTC). Applied on submit. */
export function AuditFilterForm({ value, onApply }: { value: AuditFilters; onApply: (next: AuditFilters) => void }) {
  const [draft, setDraft] = useState(() => ({ actor: value.actor ?? "", action: value.action ?? "", from: toUtcInput(value.from), to: toUtcInput(value.to) }));
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply({ actor: draft.actor.trim() || undefined, action: draft.action.trim() || undefined, from: fromUtcInput(draft.from), to: fromUtcInput(draft.to) });
  }
  const set = (field: keyof typeof draft) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [field]: e.target.value }));
  return (
    <form className="card filters" onSubmit={submit} aria-label="Filter the audit log" role="search">
      <div className="filter-fields">
        <label htmlFor="audit-actor">
          Who
          <input id="audit-actor" value={draft.actor} onChange={set("actor")} placeholder="email or API key id" autoComplete="off" />
        </label>
        <label htmlFor="audit-action">
          Action
          <input id="audit-action" value={draft.action} onChange={set("action")} placeholder="e.g. policy." list="audit-actions" autoComplete="off" />
        </label>
        <datalist id="audit-actions">
          {KNOWN_ACTIONS.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
        <label htmlFor="audit-from">
          From (UTC)
          <input id="audit-from" type="datetime-local" value={draft.from} onChange={set("from")} />
        </label>
        <label htmlFor="audit-to">
          To (UTC)
          <input id="audit-to" type="datetime-local" value={draft.to} onChange={set("to")} />
        </label>
        <div className="actions">
          <button type="submit" className="primary">
            Apply filters
          </button>
          <button type="button" onClick={() => onApply({})}>
            Clear
          </button>
        </div>
      </div>
    </form>
  );
}
