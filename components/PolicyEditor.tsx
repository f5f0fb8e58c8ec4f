"use client";

import { type FormEvent, useMemo, useState } from "react";
import type { EffectivePolicyResponse } from "@/lib/contract/admin-policies";
import { buildOverrides, draftFromOverrides, groupPolicyFields, inheritedValue, policyFields } from "@/lib/dashboard/policy-form";
import { usePolicyQuery, useSavePolicyMutation } from "@/lib/dashboard/queries/use-policies-query";
import { PolicyFieldInput } from "./PolicyFieldInput";
import { PolicyHistory } from "./PolicyHistory";
import { PolicySimulation } from "./PolicySimulation";
import { ToolTrends } from "./ToolTrends";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";

const FIELDS = policyFields();
const SECTIONS = groupPolicyFields(FIELDS);

export function PolicyEditor({ tool }: { tool: string }) {
  const { projectId, can } = useProject();
  const policy = usePolicyQuery(projectId, tool, can("admin"));
  // Here, not in the form: a save remounts the form (new ownVersion) and its confirmation must stay.
  const save = useSavePolicyMutation(projectId, tool);
  if (!can("admin")) return <EmptyState title="Policies need the admin role" />;
  return (
    <div className="stack">
      <h1>
        {tool === "*" ? "Policy" : "Tool"}: <code>{tool === "*" ? "* (project defaults)" : tool}</code>
      </h1>
      {tool !== "*" ? <ToolTrends projectId={projectId} tool={tool} /> : null}
      {/* Its own section on a tool's page, between the trends and the history. */}
      {tool !== "*" ? <h2 style={{ margin: 0 }}>Policy</h2> : null}
      {policy.error ? (
        <ErrorState error={policy.error} onRetry={() => policy.refetch()} />
      ) : policy.isPending ? (
        <Loading />
      ) : (
        <PolicyForm key={policy.data.ownVersion} projectId={projectId} tool={tool} effective={policy.data} save={save} />
      )}
      <PolicyHistory projectId={projectId} tool={tool} />
    </div>
  );
}

function PolicyForm({ projectId, tool, effective, save }: { projectId: string; tool: string; effective: EffectivePolicyResponse; save: ReturnType<typeof useSavePolicyMutation> }) {
  const initial = useMemo(() => draftFromOverrides(effective.overrides, FIELDS), [effective.overrides]);
  const [draft, setDraft] = useState(initial);
  const [reason, setReason] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const built = buildOverrides(draft, FIELDS);
  const errors = built.ok ? {} : built.errors;
  // The saved layer put through the same builder, so an untouched form compares equal to it whatever the key order.
  const savedJson = useMemo(() => {
    const saved = buildOverrides(initial, FIELDS);
    return saved.ok ? JSON.stringify(saved.policy) : null;
  }, [initial]);
  const draftJson = built.ok ? JSON.stringify(built.policy) : null;
  const reasonError = submitted && reason.trim() === "" ? "Say why: the reason is kept in the history." : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!built.ok || reason.trim() === "") return;
    save.mutate({ policy: built.policy, reason: reason.trim(), expectedVersion: effective.ownVersion });
  }

  return (
    <form onSubmit={submit} className="stack card" aria-label="Policy editor" noValidate>
      <p className="muted" style={{ margin: 0 }}>
        In force: revision {effective.version}. Fields left on “inherit” follow the {tool === "*" ? "built-in defaults" : "project defaults (*)"}.
      </p>
      {/* Fields in sections beside the simulator's prediction, which stays in view (sticky) while they are edited. */}
      <div className="policy-layout">
        <div className="stack policy-sections">
          <nav aria-label="Policy sections" className="row policy-section-links">
            {SECTIONS.map((s) => (
              <a key={s.id} href={`#policy-section-${s.id}`}>
                {s.title}
              </a>
            ))}
          </nav>
          {SECTIONS.map((s) => (
            <fieldset key={s.id} id={`policy-section-${s.id}`} className="policy-section" data-testid="policy-section" data-section={s.id}>
              <legend>
                {s.title} <span className="muted">({s.fields.length})</span>
              </legend>
              <div className="policy-grid">
                {s.fields.map((f) => (
                  <PolicyFieldInput
                    key={f.path}
                    field={f}
                    value={draft[f.path]}
                    inherited={inheritedValue(effective, f.path)}
                    error={errors[f.path]}
                    disabled={save.isPending}
                    onChange={(v) => setDraft((d) => ({ ...d, [f.path]: v }))}
                  />
                ))}
              </div>
            </fieldset>
          ))}
        </div>
        <aside className="policy-prediction" aria-label="Prediction for this draft" data-testid="policy-prediction">
          <PolicySimulation projectId={projectId} tool={tool} draftJson={draftJson === savedJson ? null : draftJson} />
        </aside>
      </div>
      <label htmlFor="policy-reason">Reason for the change</label>
      <textarea
        id="policy-reason"
        rows={2}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        aria-invalid={reasonError ? true : undefined}
        aria-describedby={reasonError ? "policy-reason-error" : undefined}
      />
      {reasonError ? (
        <span id="policy-reason-error" className="field-error">
          {reasonError}
        </span>
      ) : null}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending || !built.ok}>
          {save.isPending ? "Saving…" : "Save policy"}
        </button>
        <button type="button" onClick={() => setDraft(initial)} disabled={save.isPending}>
          Reset
        </button>
        {save.isSuccess ? <span role="status">Saved as revision {save.data.revision.version}.</span> : null}
      </div>
      {save.error ? <ErrorState error={save.error} /> : null}
    </form>
  );
}
