"use client";

import type { PolicyField } from "@/lib/dashboard/policy-form";
import { policyLabel } from "@/lib/dashboard/policy-labels";

interface Props {
  field: PolicyField;
  value: string | undefined;
  inherited: { value: string; source: string };
  error?: string;
  disabled: boolean;
  onChange: (value: string | undefined) => void;
}

/** One policy field: its own value, or "inherited" showing what it resolves to and from where. */
export function PolicyFieldInput({ field, value, inherited, error, disabled, onChange }: Props) {
  const id = `field-${field.path.replace(/\W/g, "-")}`;
  const own = value !== undefined;
  const label = policyLabel(field.path, field.description);
  const describedBy = [label.help ? `${id}-help` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <>
      <div>
        <label htmlFor={id} style={{ fontWeight: 600 }}>
          {label.label}
        </label>
        {label.help ? (
          <div id={`${id}-help`} className="muted" style={{ fontSize: "0.85em" }}>
            {label.help}
          </div>
        ) : null}
        <div className="muted" style={{ fontSize: "0.75em" }}>
          API field <code>{field.path}</code>
        </div>
      </div>
      <div className="stack" style={{ gap: 4 }}>
        <div className="row">
          {field.options ? (
            <select id={id} value={own ? value : ""} disabled={disabled} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}>
              <option value="">inherit ({inherited.value})</option>
              {field.options.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={id}
              value={own ? value : ""}
              placeholder={`inherit (${inherited.value || "none"})`}
              inputMode={field.kind === "number" ? "decimal" : undefined}
              disabled={disabled}
              aria-invalid={error ? true : undefined}
              aria-describedby={describedBy}
              onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}
            />
          )}
          <span className="muted" style={{ fontSize: "0.85em" }}>
            {own ? "set here" : `inherited from ${inherited.source}`}
          </span>
        </div>
        {error ? (
          <span id={`${id}-error`} className="field-error">
            {error}
          </span>
        ) : null}
      </div>
    </>
  );
}
