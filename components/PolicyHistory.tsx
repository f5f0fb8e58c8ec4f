"use client";

import { usePolicyHistoryQuery } from "@/lib/dashboard/queries/use-policies-query";
import { EmptyState, ErrorState, Loading } from "./StateViews";

const show = (v: unknown) => (v === undefined ? "inherited" : JSON.stringify(v));

/** A tool's policy revisions, newest first, with author, reason and field-by-field diff. */
export function PolicyHistory({ projectId, tool }: { projectId: string; tool: string }) {
  const history = usePolicyHistoryQuery(projectId, tool);
  return (
    <section aria-labelledby="history-title" className="stack">
      <h2 id="history-title">History</h2>
      {history.error ? (
        <ErrorState error={history.error} onRetry={() => history.refetch()} />
      ) : history.isPending ? (
        <Loading />
      ) : history.data.revisions.length === 0 ? (
        <EmptyState title="No revisions yet">This tool has never had its own policy.</EmptyState>
      ) : (
        <ol className="stack" style={{ paddingLeft: 20, margin: 0 }} data-testid="policy-history">
          {history.data.revisions.map((r) => (
            <li key={r.version}>
              <strong>v{r.version}</strong> by {r.author} at {r.at.slice(0, 19).replace("T", " ")} UTC — {r.reason}
              {r.restoredFrom !== null ? ` (restored v${r.restoredFrom})` : ""}
              <ul>
                {r.changes.map((c) => (
                  <li key={c.path}>
                    <code>{c.path}</code>: {show(c.before)} → {show(c.after)}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
