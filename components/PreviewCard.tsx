"use client";

import Link from "next/link";
import type { OperatorPreview } from "@/lib/contract/previews";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useDecidePreviewMutation } from "@/lib/dashboard/queries/use-previews-query";
import { ErrorState } from "./StateViews";
import { NoteForm } from "./NoteForm";

/**
 * A destructive call's preview waiting for a first execution: what it would do, what it would
 * touch, and the exact arguments. Approving releases the single-use token bound to exactly these
 * args; the agent that asked can never approve its own.
 */
export function PreviewCard({ preview, projectId, canDecide }: { preview: OperatorPreview; projectId: string; canDecide: boolean }) {
  const decide = useDecidePreviewMutation(projectId);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <article className="card stack" data-testid="preview-request" data-preview-id={preview.previewId} aria-label={`Preview ${preview.previewId}`}>
      <div className="row spread">
        <strong>
          <code>{preview.tool}</code>
        </strong>
        <span className={`badge ${preview.status}`}>{preview.status}</span>
      </div>
      <p style={{ margin: 0 }} data-testid="preview-summary">
        {preview.summary}
      </p>
      <dl className="facts">
        <dt>Run</dt>
        <dd>
          <Link href={`${base}/runs/${encodeURIComponent(preview.runId)}`}>{preview.runId}</Link>
        </dd>
        <dt>Affects</dt>
        <dd>
          <ul data-testid="preview-affected" style={{ margin: 0, paddingLeft: 18 }}>
            {preview.affected.map((resource) => (
              <li key={resource}>
                <code>{resource}</code>
              </li>
            ))}
          </ul>
        </dd>
        <dt>Asked by</dt>
        <dd>
          API key{" "}
          <strong data-testid="preview-requested-by" title={preview.requestedBy}>
            {preview.requestedByName ?? preview.requestedBy}
          </strong>{" "}
          at {formatInstant(preview.createdAt, "seconds")}
        </dd>
        {preview.decidedAt ? (
          <>
            <dt>Decided</dt>
            <dd>
              {preview.decidedBy ?? "—"} at {formatInstant(preview.decidedAt, "seconds")}: {preview.decisionNote}
            </dd>
          </>
        ) : (
          <>
            <dt>Expires</dt>
            <dd>{formatInstant(preview.expiresAt, "seconds")}</dd>
          </>
        )}
        {preview.usedAt ? (
          <>
            <dt>Executed</dt>
            <dd>{formatInstant(preview.usedAt, "seconds")}</dd>
          </>
        ) : null}
      </dl>
      <div>
        <div className="muted">Exact arguments that would run (the token is bound to these)</div>
        <pre tabIndex={0} data-testid="preview-args" style={{ margin: "4px 0 0", maxHeight: 240 }}>
          {JSON.stringify(preview.args, null, 2) ?? "null"}
        </pre>
      </div>
      {canDecide && preview.status === "pending" ? (
        <div className="row" style={{ alignItems: "flex-start", gap: 24, flexWrap: "wrap" }}>
          <div style={{ flex: "1 1 260px" }}>
            <NoteForm
              label={`Note approving ${preview.tool} (required, audited)`}
              submitLabel="Approve preview"
              pending={decide.isPending}
              onSubmit={(note) => decide.mutate({ previewId: preview.previewId, decision: "approve", note })}
            />
          </div>
          <div style={{ flex: "1 1 260px" }}>
            <NoteForm
              label={`Note denying ${preview.tool} (required, audited)`}
              submitLabel="Deny preview"
              tone="danger"
              pending={decide.isPending}
              onSubmit={(note) => decide.mutate({ previewId: preview.previewId, decision: "deny", note })}
            />
          </div>
        </div>
      ) : null}
      {decide.error ? <ErrorState error={decide.error} /> : null}
    </article>
  );
}
