"use client";

import { useEffect, useRef, useState } from "react";

/**
 * A just-created API key, the one time it exists in plain text: a warning, the key in a read-only
 * field (focused and selected, so it can be copied by hand), a copy button, and Done to forget it.
 */
export function NewKeyReveal({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("yes");
    } catch {
      // No clipboard permission (or not a secure context): leave it selected for Ctrl+C.
      field.current?.select();
      setCopied("failed");
    }
  }

  return (
    <div className="card banner stack" data-testid="new-api-key" role="region" aria-labelledby="new-key-title">
      <strong id="new-key-title">New key “{name}”: copy it now</strong>
      <p style={{ margin: 0 }}>
        This is the only time the key is shown. Idemgate keeps only its hash: if it is lost, revoke it and create another.
      </p>
      <label htmlFor="new-api-key-value" className="muted">
        API key
      </label>
      <div className="row">
        <input
          id="new-api-key-value"
          ref={field}
          readOnly
          value={secret}
          spellCheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
          style={{ fontFamily: "ui-monospace, monospace", flex: "1 1 260px", minWidth: 0 }}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" className="primary" onClick={onDone}>
          Done, I saved it
        </button>
      </div>
      <span role="status" aria-live="polite" className="muted">
        {copied === "yes" ? "Copied to the clipboard." : copied === "failed" ? "Copying is blocked here: the key is selected, press Ctrl+C." : ""}
      </span>
    </div>
  );
}
