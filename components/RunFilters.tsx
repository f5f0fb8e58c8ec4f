"use client";

import { type FormEvent, useState } from "react";
import { RUN_STATES } from "@/lib/contract/calls";
import type { RunFilters as Filters } from "@/lib/dashboard/run-filters";
import { ClientSelect } from "./ClientSelect";

const STATE_LABELS: Record<(typeof RUN_STATES)[number], string> = {
  in_progress: "a call running",
  failed: "a call failed",
  blocked: "blocked (loop detected)",
  succeeded: "every call succeeded",
};

/** The runs search: text fields apply on submit, the state at once; the parent keeps them in the URL. */
export function RunFilters({ value, onApply }: { value: Filters; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState({ runId: value.runId ?? "", agentId: value.agentId ?? "", tool: value.tool ?? "" });
  const collect = (overrides: Partial<Filters> = {}): Filters => ({
    runId: draft.runId.trim() || undefined,
    agentId: draft.agentId.trim() || undefined,
    tool: draft.tool.trim() || undefined,
    state: value.state,
    ...overrides,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(collect());
  };
  const text = (field: "runId" | "agentId" | "tool", label: string, placeholder: string) => (
    <label htmlFor={`run-filter-${field}`}>
      {label}
      <input
        id={`run-filter-${field}`}
        value={draft[field]}
        placeholder={placeholder}
        autoComplete="off"
        onChange={(e) => setDraft((d) => ({ ...d, [field]: e.target.value }))}
      />
    </label>
  );
  return (
    <form className="card filters" onSubmit={submit} aria-label="Search runs" role="search">
      <div className="filter-fields">
        {text("runId", "Run", "run id or its start")}
        {text("agentId", "Agent", "agent id")}
        {text("tool", "Tool", "a tool it called")}
        <label htmlFor="run-filter-state">
          State
          <ClientSelect id="run-filter-state" value={value.state ?? ""} onChange={(e) => onApply(collect({ state: (e.target.value || undefined) as Filters["state"] }))}>
            <option value="">any</option>
            {RUN_STATES.map((state) => (
              <option key={state} value={state}>
                {STATE_LABELS[state]}
              </option>
            ))}
          </ClientSelect>
        </label>
        <div className="actions">
          <button type="submit" className="primary">Search</button>
          <button type="button" onClick={() => onApply({})}>Clear</button>
        </div>
      </div>
    </form>
  );
}
