"use client";

import type { PolicyField } from "@/lib/dashboard/policy-form";

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
  return (
    <>
      <label htmlFor={id}>
        <code>{field.path}</code>
        {field.description ? <div className="muted" style={{ fontSize: "0.85em" }}>{field.description}</div> : null}
      </label>
      <div className="stack" style={{ gap: 4 }}>
        <div className="row">
          {field.options ? (
            <select id={id} value={own ? value : ""} disabled={disabled} onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}>
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
              aria-describedby={error ? `${id}-error` : undefined}
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
