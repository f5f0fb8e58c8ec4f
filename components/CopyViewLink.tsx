"use client";

import { useState } from "react";

/**
 * "Save this view": the page's URL carries its filters, search and sort, so the view is its link.
 * Copies it; where the clipboard is refused, shows it selected for a manual copy.
 */
export function CopyViewLink() {
  const [state, setState] = useState<"idle" | "copied" | { manual: string }>("idle");
  async function copy() {
    const link = window.location.href;
    try {
      await navigator.clipboard.writeText(link);
      setState("copied");
    } catch {
      setState({ manual: link });
    }
  }
  return (
    <span className="row" style={{ gap: 6 }}>
      <button type="button" data-testid="copy-view-link" onClick={copy} title="Copy a link to this view: its filters, search and sort">
        Copy link to this view
      </button>
      <span role="status" className="muted" data-testid="copy-view-status">
        {state === "copied" ? "Link copied" : null}
      </span>
      {typeof state === "object" ? (
        <label>
          <span className="muted">Link </span>
          <input readOnly value={state.manual} data-testid="view-link" onFocus={(e) => e.currentTarget.select()} autoFocus style={{ width: 280 }} />
        </label>
      ) : null}
    </span>
  );
}
