"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { useProject } from "./ProjectContext";

/** Open a call by id (from a log line, an agent trace or a resend request). */
export function CallLookup() {
  const { projectId } = useProject();
  const router = useRouter();
  const [id, setId] = useState("");
  function submit(event: FormEvent) {
    event.preventDefault();
    if (id.trim()) router.push(`/projects/${encodeURIComponent(projectId)}/calls/${encodeURIComponent(id.trim())}`);
  }
  return (
    <div className="stack">
      <h1>Calls</h1>
      <form onSubmit={submit} className="row">
        <label htmlFor="call-id">Call id</label>
        <input id="call-id" value={id} onChange={(e) => setId(e.target.value)} placeholder="call_…" style={{ flex: 1, minWidth: 200 }} />
        <button type="submit" className="primary">Open</button>
      </form>
      <p className="muted">Calls are also linked from the approvals inbox. A searchable call list needs an API that does not exist yet.</p>
    </div>
  );
}
