"use client";

import { useEffect, useRef, useState } from "react";

interface Props {
  /** The button that asks, e.g. "Revoke". */
  label: string;
  /** Its accessible name when several rows share the label, e.g. "Revoke ci-agent". */
  ariaLabel?: string;
  /** What confirming does, said before it is done. */
  question: string;
  confirmLabel: string;
  pending: boolean;
  onConfirm: () => void;
}

/**
 * A destructive action behind an inline confirmation: the first button asks, the question and
 * its confirm button take its place (focus moves there; Escape or Cancel goes back).
 */
export function ConfirmAction({ label, ariaLabel, question, confirmLabel, pending, onConfirm }: Props) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const askRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (wasAsking.current) askRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (!asking) {
    return (
      <button ref={askRef} type="button" className="danger" aria-label={ariaLabel} onClick={() => setAsking(true)} disabled={pending}>
        {label}
      </button>
    );
  }
  return (
    <span className="row" role="group" aria-label={question} onKeyDown={(e) => e.key === "Escape" && setAsking(false)} style={{ gap: 8 }}>
      <span>{question}</span>
      <button ref={confirmRef} type="button" className="danger" onClick={onConfirm} disabled={pending}>
        {pending ? "Working…" : confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)} disabled={pending}>
        Cancel
      </button>
    </span>
  );
}
