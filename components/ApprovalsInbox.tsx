"use client";

import { useProject } from "./ProjectContext";
import { ResendRequestCard } from "./ResendRequestCard";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { usePreviewsQuery } from "@/lib/dashboard/queries/use-previews-query";
import { useResendRequestsQuery } from "@/lib/dashboard/queries/use-resend-requests-query";
import { PreviewCard } from "./PreviewCard";

/** Previews of first executions and resend requests to decide, then the decided history. */
export function ApprovalsInbox() {
  const { projectId, can } = useProject();
  const pending = useResendRequestsQuery(projectId, "pending");
  const all = useResendRequestsQuery(projectId);
  const decided = all.data?.requests.filter((r) => r.status !== "pending") ?? [];
  const pendingPreviews = usePreviewsQuery(projectId, "pending");
  const previews = usePreviewsQuery(projectId);
  const decidedPreviews = previews.data?.previews.filter((p) => p.mode === "approve" && p.status !== "pending") ?? [];

  return (
    <div className="stack">
      <h1>Approvals</h1>
      {!can("operator") ? <p className="muted">You can read requests; deciding them needs the operator role.</p> : null}
      <section aria-labelledby="previews-title" className="stack">
        <h2 id="previews-title">Previews waiting for approval</h2>
        {pendingPreviews.error ? (
          <ErrorState error={pendingPreviews.error} onRetry={() => pendingPreviews.refetch()} />
        ) : pendingPreviews.isPending ? (
          <Loading />
        ) : pendingPreviews.data.previews.length === 0 ? (
          <EmptyState title="No previews to approve">A destructive tool under a `preview: approve` policy posts its dry run here before its first execution.</EmptyState>
        ) : (
          pendingPreviews.data.previews.map((p) => <PreviewCard key={p.previewId} preview={p} projectId={projectId} canDecide={can("operator")} />)
        )}
      </section>
      <section aria-labelledby="pending-title" className="stack">
        <h2 id="pending-title">Resend requests</h2>
        {pending.error ? (
          <ErrorState error={pending.error} onRetry={() => pending.refetch()} />
        ) : pending.isPending ? (
          <Loading />
        ) : pending.data.requests.length === 0 ? (
          <EmptyState title="Nothing to decide">When an agent asks to run a completed call again, the request appears here.</EmptyState>
        ) : (
          pending.data.requests.map((r) => <ResendRequestCard key={r.requestId} request={r} projectId={projectId} canDecide={can("operator")} />)
        )}
      </section>
      <section aria-labelledby="decided-title" className="stack">
        <h2 id="decided-title">Decided</h2>
        {all.error ? (
          <ErrorState error={all.error} onRetry={() => all.refetch()} />
        ) : all.isPending ? (
          <Loading />
        ) : decided.length === 0 ? (
          <EmptyState title="No decisions yet" />
        ) : (
          decided.map((r) => <ResendRequestCard key={r.requestId} request={r} projectId={projectId} canDecide={false} />)
        )}
        {decidedPreviews.map((p) => (
          <PreviewCard key={p.previewId} preview={p} projectId={projectId} canDecide={false} />
        ))}
      </section>
    </div>
  );
}
