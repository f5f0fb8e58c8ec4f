"use client";

import Link from "next/link";
import { type FormEvent, useState } from "react";
import type { OperatorResendRequest } from "@/lib/contract/operator";
import { useDecideResendMutation } from "@/lib/dashboard/queries/use-resend-requests-query";
import { ErrorState } from "./StateViews";

function when(iso: string | null): string {
  return iso ? new Date(iso).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "—";
}

/** One resend request: what would run again, who asked, and (operators, pending only) approve or deny with a note. */
export function ResendRequestCard({ request, projectId, canDecide }: { request: OperatorResendRequest; projectId: string; canDecide: boolean }) {
  const decide = useDecideResendMutation(projectId);
  const [note, setNote] = useState("");
  const [touched, setTouched] = useState(false);
  const noteId = `note-${request.requestId}`;
  const noteMissing = note.trim().length === 0;

  function submit(decision: "approve" | "deny") {
    return (event?: FormEvent) => {
      event?.preventDefault();
      setTouched(true);
      if (noteMissing) return;
      decide.mutate({ requestId: request.requestId, decision, note: note.trim() });
    };
  }

  return (
    <article className="card stack" data-testid="resend-request" data-request-id={request.requestId} aria-label={`Resend request ${request.requestId}`}>
      <div className="row spread">
        <strong>
          <code>{request.tool}</code>
        </strong>
        <span className={`badge ${request.status}`}>{request.status}</span>
      </div>
      <dl className="facts">
        <dt>Request</dt>
        <dd>
          <code>{request.requestId}</code>
        </dd>
        <dt>Call</dt>
        <dd>
          <Link href={`/projects/${encodeURIComponent(projectId)}/calls/${encodeURIComponent(request.callId)}`}>{request.callId}</Link>
        </dd>
        <dt>Reason</dt>
        <dd>{request.reason}</dd>
        <dt>Asked by</dt>
        <dd>
          {request.requestedBy.label ?? request.requestedBy.id ?? request.requestedBy.type} at {when(request.requestedAt)}
        </dd>
        {request.decidedAt ? (
          <>
            <dt>Decided</dt>
            <dd>
              {request.decidedBy?.label ?? request.decidedBy?.id ?? "—"} at {when(request.decidedAt)}: {request.note}
            </dd>
          </>
        ) : (
          <>
            <dt>Expires</dt>
            <dd>{when(request.expiresAt)}</dd>
          </>
        )}
      </dl>
      <div>
        <div className="muted">Arguments that would run again</div>
        <pre data-testid="resend-args" style={{ margin: "4px 0 0", maxHeight: 240 }}>
          {JSON.stringify(request.args, null, 2) ?? "null"}
        </pre>
      </div>
      {canDecide && request.status === "pending" ? (
        <form onSubmit={submit("approve")} className="stack">
          <label htmlFor={noteId}>Note (required, kept in the audit log)</label>
          <textarea
            id={noteId}
            value={note}
            rows={2}
            onChange={(e) => setNote(e.target.value)}
            aria-invalid={touched && noteMissing}
            aria-describedby={touched && noteMissing ? `${noteId}-error` : undefined}
          />
          {touched && noteMissing ? (
            <span id={`${noteId}-error`} className="field-error">
              Write a note for the audit log.
            </span>
          ) : null}
          <div className="row">
            <button type="submit" className="primary" disabled={decide.isPending}>
              Approve
            </button>
            <button type="button" className="danger" disabled={decide.isPending} onClick={submit("deny")}>
              Deny
            </button>
          </div>
          {decide.error ? <ErrorState error={decide.error} /> : null}
        </form>
      ) : null}
    </article>
  );
}
