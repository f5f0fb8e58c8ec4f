"use client";

import { type FormEvent, useState } from "react";
import { prepareCallTimeline } from "@/lib/dashboard/prepare-call-timeline";
import { useCallQuery, useEvictCallMutation } from "@/lib/dashboard/queries/use-call-query";
import { useProject } from "./ProjectContext";
import { ErrorState, Loading } from "./StateViews";

export function CallDetail({ callId }: { callId: string }) {
  const { projectId, can } = useProject();
  const call = useCallQuery(projectId, callId);
  if (call.error) return <ErrorState error={call.error} onRetry={() => call.refetch()} />;
  if (call.isPending) return <Loading />;
  const c = call.data;
  return (
    <div className="stack">
      <h1>
        Call <code style={{ overflowWrap: "anywhere" }}>{c.callId}</code>
      </h1>
      <div className="card">
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <span className={`badge ${c.status}`}>{c.status}</span>
          </dd>
          <dt>Tool</dt>
          <dd><code>{c.tool}</code></dd>
          <dt>Run / step</dt>
          <dd>{c.runId} / {c.stepId ?? "—"}</dd>
          <dt>Scope</dt>
          <dd>{c.scope ?? "—"}</dd>
          <dt>Key</dt>
          <dd><code>{c.key}</code></dd>
          <dt>Attempts / replays</dt>
          <dd>{c.attempt} / {c.replays}</dd>
          <dt>Args fingerprint</dt>
          <dd><code>{c.argsFingerprint}</code></dd>
        </dl>
      </div>
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <ol data-testid="call-timeline">
          {prepareCallTimeline(c).map((e) => (
            <li key={e.label}>
              <time dateTime={e.at}>{e.at.slice(0, 19).replace("T", " ")} UTC</time> — {e.label}
            </li>
          ))}
        </ol>
      </section>
      <section aria-labelledby="outcome-title">
        <h2 id="outcome-title">Outcome</h2>
        <pre>{JSON.stringify(c.error ?? c.result ?? null, null, 2)}</pre>
      </section>
      {can("operator") && c.status !== "in_progress" ? <EvictForm projectId={projectId} callId={c.callId} /> : null}
    </div>
  );
}

function EvictForm({ projectId, callId }: { projectId: string; callId: string }) {
  const evict = useEvictCallMutation(projectId, callId);
  const [reason, setReason] = useState("");
  const [touched, setTouched] = useState(false);
  const missing = reason.trim() === "";
  function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!missing) evict.mutate(reason.trim());
  }
  return (
    <form onSubmit={submit} className="card stack" aria-labelledby="evict-title">
      <h2 id="evict-title" style={{ margin: 0, fontSize: "1.1em" }}>Evict the outcome</h2>
      <p className="muted" style={{ margin: 0 }}>The next begin with this key executes afresh.</p>
      <label htmlFor="evict-reason">Reason</label>
      <input id="evict-reason" value={reason} onChange={(e) => setReason(e.target.value)} aria-invalid={touched && missing ? true : undefined} />
      {touched && missing ? <span className="field-error">Give a reason for the audit log.</span> : null}
      <div>
        <button type="submit" className="danger" disabled={evict.isPending}>Evict</button>
      </div>
      {evict.isSuccess ? <span role="status">Evicted.</span> : null}
      {evict.error ? <ErrorState error={evict.error} /> : null}
    </form>
  );
}
