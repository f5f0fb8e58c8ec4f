import type { ReactNode } from "react";
import { ApiError } from "@/lib/dashboard/fetch-json";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="card" data-testid="empty-state">
      <strong>{title}</strong>
      {children ? <p className="muted" style={{ margin: "4px 0 0" }}>{children}</p> : null}
    </div>
  );
}

function explain(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return "Your session has ended: sign in again.";
    if (error.status === 403) return `Your role cannot see this (${error.message}).`;
    if (error.status === 404) return "Not found in this project.";
    return `${error.message} (${error.code}, HTTP ${error.status})`;
  }
  return error instanceof Error ? error.message : "Something went wrong.";
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div className="card alert" role="alert">
      <p style={{ margin: 0 }}>{explain(error)}</p>
      {onRetry && !(error instanceof ApiError && error.status < 500) ? (
        <button type="button" onClick={onRetry} style={{ marginTop: 8 }}>
          Retry
        </button>
      ) : null}
      {error instanceof ApiError && error.status === 401 ? <a href="/sign-in">Sign in</a> : null}
    </div>
  );
}
