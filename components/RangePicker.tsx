"use client";

import { type FormEvent, useState } from "react";
import { fromUtcInput, toUtcInput } from "@/lib/dashboard/call-filters";
import { RANGES, type RangeSpec, isRangeId } from "@/lib/dashboard/range";
import { ClientSelect } from "./ClientSelect";

/** A preset that moves with the clock, or a fixed custom range (UTC). The parent keeps it in the URL. */
export function RangePicker({ value, onChange }: { value: RangeSpec; onChange: (next: RangeSpec) => void }) {
  const [custom, setCustom] = useState(value.kind === "custom");
  const [draft, setDraft] = useState(() =>
    value.kind === "custom" ? { from: toUtcInput(new Date(value.from).toISOString()), to: toUtcInput(new Date(value.to).toISOString()) } : { from: "", to: "" },
  );
  const [error, setError] = useState<string | null>(null);

  function apply(event: FormEvent) {
    event.preventDefault();
    const from = fromUtcInput(draft.from);
    const to = fromUtcInput(draft.to);
    if (!from || !to || Date.parse(from) >= Date.parse(to)) {
      setError("Pick a start before the end.");
      return;
    }
    setError(null);
    onChange({ kind: "custom", from: Date.parse(from), to: Date.parse(to) });
  }

  return (
    <form className="range-picker row" onSubmit={apply} aria-label="Time range">
      <label htmlFor="range-preset" className="row" style={{ gap: 6 }}>
        <span>Range</span>
        <ClientSelect
          id="range-preset"
          value={custom ? "custom" : value.kind === "preset" ? value.id : "custom"}
          onChange={(e) => {
            if (isRangeId(e.target.value)) {
              setCustom(false);
              onChange({ kind: "preset", id: e.target.value });
            } else setCustom(true);
          }}
        >
          {Object.entries(RANGES).map(([id, r]) => (
            <option key={id} value={id}>
              {r.label}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </ClientSelect>
      </label>
      {custom ? (
        <>
          <label htmlFor="range-from" className="row" style={{ gap: 6 }}>
            <span>From (UTC)</span>
            <input id="range-from" type="datetime-local" value={draft.from} onChange={(e) => setDraft((d) => ({ ...d, from: e.target.value }))} />
          </label>
          <label htmlFor="range-to" className="row" style={{ gap: 6 }}>
            <span>To (UTC)</span>
            <input id="range-to" type="datetime-local" value={draft.to} onChange={(e) => setDraft((d) => ({ ...d, to: e.target.value }))} />
          </label>
          <button type="submit">Show</button>
          {error ? (
            <span role="alert" className="field-error">
              {error}
            </span>
          ) : null}
        </>
      ) : null}
    </form>
  );
}
