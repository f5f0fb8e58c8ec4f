"use client";

import Link from "next/link";
import { type FormEvent, useState } from "react";
import type { OperatorResendRequest } from "@/lib/contract/operator";
import { diffArgs } from "@/lib/dashboard/args-diff";
import { useCallEventsQuery } from "@/lib/dashboard/queries/use-call-events-query";
import { useCallQuery } from "@/lib/dashboard/queries/use-call-query";
import { useDecideResendMutation } from "@/lib/dashboard/queries/use-resend-requests-query";
import { ArgsDiff } from "./ArgsDiff";
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
        <dd data-testid="resend-asked-by">
          {request.requestedBy.type === "agent" ? (
            <>
              API key <strong>{request.requestedBy.name ?? request.requestedBy.label ?? request.requestedBy.id}</strong>
              {request.requestedBy.name ? <span className="muted"> ({request.requestedBy.id})</span> : null}
            </>
          ) : (
            (request.requestedBy.label ?? request.requestedBy.id ?? request.requestedBy.type)
          )}{" "}
          at {when(request.requestedAt)}
        </dd>
        <OriginalCall projectId={projectId} callId={request.callId} />
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
      <ResendArgs projectId={projectId} request={request} />
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

/** The call the resend would repeat: its run and agent, and how it ended (with its result or error). */
function OriginalCall({ projectId, callId }: { projectId: string; callId: string }) {
  const call = useCallQuery(projectId, callId);
  const ledger = useCallEventsQuery(projectId, callId);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  if (call.error) return null;
  const c = call.data;
  return (
    <>
      <dt>Run / agent</dt>
      <dd data-testid="resend-run">
        {c ? (
          <>
            <Link href={`${base}/runs/${encodeURIComponent(c.runId)}`}>{c.runId}</Link>
            {c.stepId ? <span className="muted"> / step {c.stepId}</span> : null} · agent <strong>{c.agentId ?? "root"}</strong>
          </>
        ) : (
          "…"
        )}
      </dd>
      <dt>Original outcome</dt>
      <dd data-testid="resend-outcome">
        {c ? (
          <>
            <span className={`badge ${c.status}`}>{c.status.replace(/_/g, " ")}</span>
            {c.completedAt ? ` at ${when(c.completedAt)}` : null}
            {c.error ? <div className="field-error">{c.error.message}</div> : null}
            {c.status === "succeeded" && ledger.data ? (
              <pre tabIndex={0} data-testid="resend-result" style={{ margin: "4px 0 0", maxHeight: 160 }}>
                {JSON.stringify(ledger.data.result, null, 2) ?? "null"}
              </pre>
            ) : null}
          </>
        ) : (
          "…"
        )}
      </dd>
    </>
  );
}

/** The arguments that would run again; when they are not the original call's, both sets and what differs. */
function ResendArgs({ projectId, request }: { projectId: string; request: OperatorResendRequest }) {
  const ledger = useCallEventsQuery(projectId, request.callId);
  const original = ledger.data?.args;
  const differs = ledger.data !== undefined && JSON.stringify(original) !== JSON.stringify(request.args) && diffArgs(original, request.args).length > 0;
  if (differs) {
    return (
      <section aria-label="Arguments: original and resend" className="stack" style={{ gap: 4 }}>
        <strong className="args-warning">The resend would run with different arguments than the original call.</strong>
        <ArgsDiff before={original} after={request.args} beforeLabel="Original call" afterLabel="Would run again" testId="resend-args-diff" />
      </section>
    );
  }
  return (
    <div>
      <div className="muted">Arguments that would run again{ledger.data ? " (the same as the original call)" : ""}</div>
      <pre tabIndex={0} data-testid="resend-args" style={{ margin: "4px 0 0", maxHeight: 240 }}>
        {JSON.stringify(request.args, null, 2) ?? "null"}
      </pre>
    </div>
  );
}
