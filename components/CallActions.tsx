"use client";

import Link from "next/link";
import { type FormEvent, type ReactNode, useState } from "react";
import type { CallSummary } from "@/lib/contract/calls";
import type { CallStatus } from "@/lib/contract/v1";
import { useEvictCallMutation } from "@/lib/dashboard/queries/use-call-query";
import { useRefreshCall, useRequestResendMutation, useResolveCallMutation } from "@/lib/dashboard/queries/use-call-events-query";
import { ErrorState } from "./StateViews";

/**
 * What an operator may do to a call, offered only when it applies: evict a finished outcome, resolve
 * a call whose outcome is unknown (verify, lease lost), or ask for a resend of a completed one
 * (another operator approves it). Viewers get none of these; the API refuses them anyway.
 */
export function CallActions({ projectId, call, resentAs = null }: { projectId: string; call: CallStatus; resentAs?: CallSummary | null }) {
  const completed = call.status === "succeeded" || call.status === "failed";
  return (
    <section aria-labelledby="actions-title" className="stack">
      <h2 id="actions-title">Actions</h2>
      {call.status !== "in_progress" ? <EvictForm projectId={projectId} callId={call.callId} /> : null}
      {!completed ? <ResolveForm projectId={projectId} callId={call.callId} /> : null}
      {completed && resentAs ? (
        <p className="card" style={{ margin: 0 }} data-testid="call-resent">
          Already resent: it ran again as{" "}
          <Link href={`/projects/${encodeURIComponent(projectId)}/calls/${encodeURIComponent(resentAs.callId)}`}>{resentAs.callId}</Link> ({resentAs.status}). A
          further resend is asked for on that call.
        </p>
      ) : completed ? (
        <ResendForm projectId={projectId} callId={call.callId} />
      ) : null}
    </section>
  );
}

function ActionCard({ title, id, hint, onSubmit, children }: { title: string; id: string; hint: string; onSubmit: (e: FormEvent) => void; children: ReactNode }) {
  return (
    <form onSubmit={onSubmit} className="card stack" aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`} style={{ margin: 0, fontSize: "1.05em" }}>{title}</h3>
      <p className="muted" style={{ margin: 0 }}>{hint}</p>
      {children}
    </form>
  );
}

function useRequiredText() {
  const [value, setValue] = useState("");
  const [touched, setTouched] = useState(false);
  const missing = value.trim() === "";
  return { value, setValue, touch: () => setTouched(true), showError: touched && missing, missing };
}

type RequiredText = ReturnType<typeof useRequiredText>;

/** A one-line text field that must be filled, with its error once the form was submitted empty. */
function RequiredTextField({ id, label, field, message }: { id: string; label: string; field: RequiredText; message: string }) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input id={id} value={field.value} onChange={(e) => field.setValue(e.target.value)} aria-invalid={field.showError || undefined} aria-describedby={field.showError ? `${id}-error` : undefined} />
      {field.showError ? (
        <span id={`${id}-error`} className="field-error">
          {message}
        </span>
      ) : null}
    </>
  );
}

function EvictForm({ projectId, callId }: { projectId: string; callId: string }) {
  const evict = useEvictCallMutation(projectId, callId);
  const refresh = useRefreshCall(projectId, callId);
  const reason = useRequiredText();
  function submit(event: FormEvent) {
    event.preventDefault();
    reason.touch();
    if (!reason.missing) evict.mutate(reason.value.trim(), { onSuccess: () => void refresh() });
  }
  return (
    <ActionCard title="Evict the outcome" id="evict" hint="The next begin with this key executes afresh." onSubmit={submit}>
      <RequiredTextField id="evict-reason" label="Reason" field={reason} message="Give a reason for the audit log." />
      <div>
        <button type="submit" className="danger" disabled={evict.isPending}>Evict</button>
      </div>
      {evict.isSuccess ? <span role="status">Evicted.</span> : null}
      {evict.error ? <ErrorState error={evict.error} /> : null}
    </ActionCard>
  );
}

function ResolveForm({ projectId, callId }: { projectId: string; callId: string }) {
  const resolve = useResolveCallMutation(projectId, callId);
  const note = useRequiredText();
  const [outcome, setOutcome] = useState<"succeeded" | "failed">("succeeded");
  const [detail, setDetail] = useState("");
  const [detailError, setDetailError] = useState<string | null>(null);
  function submit(event: FormEvent) {
    event.preventDefault();
    note.touch();
    let result: unknown;
    if (outcome === "succeeded" && detail.trim()) {
      try {
        result = JSON.parse(detail);
      } catch {
        setDetailError("The result must be JSON, e.g. {\"chargeId\": \"ch_1\"}.");
        return;
      }
    }
    if (outcome === "failed" && !detail.trim()) {
      setDetailError("Say what failed downstream.");
      return;
    }
    setDetailError(null);
    if (note.missing) return;
    resolve.mutate(
      outcome === "succeeded"
        ? { outcome, note: note.value.trim(), ...(result !== undefined ? { result } : {}) }
        : { outcome, note: note.value.trim(), error: { message: detail.trim() } },
    );
  }
  return (
    <ActionCard title="Resolve with what you found downstream" id="resolve" hint="For a verify or lost-lease case: record the outcome; later begins replay it." onSubmit={submit}>
      <label htmlFor="resolve-outcome">Outcome</label>
      <select id="resolve-outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as "succeeded" | "failed")}>
        <option value="succeeded">succeeded</option>
        <option value="failed">failed</option>
      </select>
      <label htmlFor="resolve-detail">{outcome === "succeeded" ? "Result (JSON, optional)" : "Error message"}</label>
      <textarea id="resolve-detail" rows={3} value={detail} onChange={(e) => setDetail(e.target.value)} aria-invalid={detailError ? true : undefined} aria-describedby={detailError ? "resolve-detail-error" : undefined} />
      {detailError ? <span id="resolve-detail-error" className="field-error">{detailError}</span> : null}
      <RequiredTextField id="resolve-note" label="Note" field={note} message="Write a note for the audit log." />
      <div>
        <button type="submit" className="primary" disabled={resolve.isPending}>Resolve</button>
      </div>
      {resolve.isSuccess ? <span role="status">Resolved.</span> : null}
      {resolve.error ? <ErrorState error={resolve.error} /> : null}
    </ActionCard>
  );
}

function ResendForm({ projectId, callId }: { projectId: string; callId: string }) {
  const request = useRequestResendMutation(projectId, callId);
  const reason = useRequiredText();
  function submit(event: FormEvent) {
    event.preventDefault();
    reason.touch();
    if (!reason.missing) request.mutate(reason.value.trim());
  }
  return (
    <ActionCard title="Request a resend" id="resend" hint="Lets this call run once more after another operator approves it." onSubmit={submit}>
      <RequiredTextField id="resend-reason" label="Reason" field={reason} message="Give a reason for the approver." />
      <div>
        <button type="submit" disabled={request.isPending}>Request resend</button>
      </div>
      {request.data ? (
        <span role="status">
          Requested ({request.data.status}): <Link href={`/projects/${encodeURIComponent(projectId)}/approvals`}>see approvals</Link>
        </span>
      ) : null}
      {request.error ? <ErrorState error={request.error} /> : null}
    </ActionCard>
  );
}
