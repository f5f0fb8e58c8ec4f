"use client";

import { type FormEvent, useId, useState } from "react";

interface Props {
  /** The field's label, e.g. "Note (required, kept in the audit log)". */
  label: string;
  submitLabel: string;
  pending: boolean;
  /** "danger" for actions that cannot be taken back. */
  tone?: "primary" | "danger";
  onSubmit: (text: string) => void;
}

/** One required note or reason and the button that acts with it (the audit log keeps the text). */
export function NoteForm({ label, submitLabel, pending, tone = "primary", onSubmit }: Props) {
  const id = useId();
  const [text, setText] = useState("");
  const [touched, setTouched] = useState(false);
  const missing = text.trim().length === 0;
  function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!missing) onSubmit(text.trim());
  }
  return (
    <form onSubmit={submit} className="stack" style={{ gap: 4 }}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={text}
        rows={2}
        onChange={(e) => setText(e.target.value)}
        aria-invalid={touched && missing}
        aria-describedby={touched && missing ? `${id}-error` : undefined}
      />
      {touched && missing ? (
        <span id={`${id}-error`} className="field-error">
          Write a note for the audit log.
        </span>
      ) : null}
      <div className="row">
        <button type="submit" className={tone} disabled={pending}>
          {pending ? "Working…" : submitLabel}
        </button>
      </div>
    </form>
  );
}
