"use client";

import { type FormEvent, useState } from "react";
import { CALL_DECISION_FILTERS, CALL_STATUSES } from "@/lib/contract/calls";
import { type CallFilters as Filters, activeFilterCount, fromUtcInput, toUtcInput } from "@/lib/dashboard/call-filters";
import { formatInstant } from "@/lib/dashboard/format-time";
import { ClientSelect } from "./ClientSelect";

interface Props {
  value: Filters;
  onApply: (filters: Filters) => void;
  /** Tools seen on the loaded pages, offered as suggestions. */
  tools: string[];
}

const HOUR = 3_600_000;

/**
 * The calls list's filters. Text fields apply on submit (Enter or the button), choices at once;
 * the parent keeps them in the URL. Times are UTC, like every time on the dashboard.
 */
export function CallFilters({ value, onApply, tools }: Props) {
  // On a phone the form starts folded behind one button (CSS ignores this on wider screens).
  const [folded, setFolded] = useState(true);
  const [draft, setDraft] = useState(() => ({
    q: value.q ?? "",
    tool: value.tool ?? "",
    runId: value.runId ?? "",
    agentId: value.agentId ?? "",
    key: value.key ?? "",
    from: toUtcInput(value.from),
    to: toUtcInput(value.to),
  }));

  const collect = (overrides: Partial<Filters> = {}): Filters => ({
    limit: value.limit,
    status: value.status,
    decision: value.decision,
    decidedFrom: value.decidedFrom,
    decidedTo: value.decidedTo,
    q: draft.q.trim() || undefined,
    tool: draft.tool.trim() || undefined,
    runId: draft.runId.trim() || undefined,
    agentId: draft.agentId.trim() || undefined,
    key: draft.key.trim() || undefined,
    from: fromUtcInput(draft.from),
    to: fromUtcInput(draft.to),
    ...overrides,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(collect());
  }

  function lastHours(hours: number) {
    const from = new Date(Date.now() - hours * HOUR).toISOString();
    setDraft((d) => ({ ...d, from: toUtcInput(from), to: "" }));
    onApply(collect({ from, to: undefined }));
  }

  const text = (field: "q" | "tool" | "runId" | "agentId" | "key", label: string, placeholder: string, list?: string) => (
    <label htmlFor={`filter-${field}`}>
      {label}
      <input
        id={`filter-${field}`}
        value={draft[field]}
        placeholder={placeholder}
        list={list}
        autoComplete="off"
        onChange={(e) => setDraft((d) => ({ ...d, [field]: e.target.value }))}
      />
    </label>
  );

  /** A select that applies at once: a choice is complete when made, unlike typed text. */
  const choice = (field: "decision" | "status", label: string, options: readonly string[]) => {
    const current = value[field];
    // A chart's group (several decisions) is a choice of its own while it is applied.
    const all = current && !options.includes(current) ? [...options, current] : options;
    return (
      <label htmlFor={`filter-${field}`}>
        {label}
        <ClientSelect id={`filter-${field}`} value={current ?? ""} onChange={(e) => onApply(collect({ [field]: e.target.value || undefined }))}>
          <option value="">any</option>
          {all.map((option) => (
            <option key={option} value={option}>
              {option.replace(/_/g, " ").replace(/,/g, ", ")}
            </option>
          ))}
        </ClientSelect>
      </label>
    );
  };
  const active = activeFilterCount(value);

  return (
    <form className={`card filters${folded ? " folded" : ""}`} onSubmit={submit} aria-label="Filter calls" role="search">
      <button type="button" className="filters-toggle" aria-expanded={!folded} aria-controls="call-filter-fields" onClick={() => setFolded((f) => !f)}>
        {folded ? "Show filters" : "Hide filters"}
        {active > 0 ? ` (${active} applied)` : ""}
      </button>
      <div id="call-filter-fields" className="filter-fields">
        {text("q", "Args or result contain", "a value, e.g. an order id")}
        {text("tool", "Tool", "any tool", "known-tools")}
        <datalist id="known-tools">
          {tools.map((tool) => (
            <option key={tool} value={tool} />
          ))}
        </datalist>
        {choice("decision", "Decision", CALL_DECISION_FILTERS)}
        {choice("status", "Status", CALL_STATUSES)}
        {text("runId", "Run", "run id")}
        {text("agentId", "Agent", "agent id")}
        {text("key", "Key", "key or its first characters")}
        <label htmlFor="filter-from">
          From (UTC)
          <input id="filter-from" type="datetime-local" value={draft.from} onChange={(e) => setDraft((d) => ({ ...d, from: e.target.value }))} />
        </label>
        <label htmlFor="filter-to">
          To (UTC)
          <input id="filter-to" type="datetime-local" value={draft.to} onChange={(e) => setDraft((d) => ({ ...d, to: e.target.value }))} />
        </label>
        {value.decidedFrom || value.decidedTo ? (
          <p className="decided-window" data-testid="decided-window">
            Only calls decided {value.decision ? <strong>{value.decision.replace(/_/g, " ").replace(/,/g, ", ")}</strong> : null}
            {value.decidedFrom ? ` from ${formatInstant(value.decidedFrom, "seconds")}` : ""}
            {value.decidedTo ? ` until ${formatInstant(value.decidedTo, "seconds")}` : ""} (a chart&apos;s bar).{" "}
            <button type="button" onClick={() => onApply(collect({ decidedFrom: undefined, decidedTo: undefined }))}>
              Any time
            </button>
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary">Apply filters</button>
          <button type="button" onClick={() => lastHours(1)}>Last hour</button>
          <button type="button" onClick={() => lastHours(24)}>Last 24 h</button>
          <button type="button" onClick={() => onApply({ limit: value.limit })}>Clear</button>
        </div>
      </div>
    </form>
  );
}
