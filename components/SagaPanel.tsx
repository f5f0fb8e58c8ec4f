"use client";

import Link from "next/link";
import type { CompensationStepWire, RunCompensation } from "@/lib/contract/sagas";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useSagaActionMutation, useSagaQuery } from "@/lib/dashboard/queries/use-saga-query";
import { labelOfRunState, labelOfStepStatus, toneOfRunState, toneOfStepStatus } from "@/lib/dashboard/saga-labels";
import { ToneBadge } from "./DecisionBadge";
import { NoteForm } from "./NoteForm";
import { useProject } from "./ProjectContext";
import { ErrorState, Loading } from "./StateViews";
import { TableWrap } from "./TableWrap";

/**
 * A run's saga: its state, who aborted it and why, and each step's compensation in the order the
 * plan runs them. Operators abort a running run, retry a failed undo, or resolve one by hand with a
 * note (every action audited).
 */
export function SagaPanel({ runId }: { runId: string }) {
  const { projectId, can } = useProject();
  const saga = useSagaQuery(projectId, runId);
  const act = useSagaActionMutation(projectId, runId);
  const operator = can("operator");
  if (saga.error) return <ErrorState error={saga.error} onRetry={() => saga.refetch()} />;
  if (saga.isPending) return <Loading label="Loading the compensation plan…" />;
  const plan = saga.data;
  if (!plan.abort && plan.steps.length === 0) {
    // No saga: nothing to compensate, so no state to show and no abort to offer (issue #38).
    return (
      <section aria-labelledby="saga-title" className="card stack" data-testid="saga-panel" data-saga="none">
        <h2 id="saga-title" style={{ margin: 0 }}>
          Compensation
        </h2>
        <p className="muted" style={{ margin: 0 }} data-testid="saga-none">
          No saga: no step of this run registered an undo, so there is nothing to compensate.
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="saga-title" className="card stack" data-testid="saga-panel">
      <div className="row spread">
        <h2 id="saga-title" style={{ margin: 0 }}>
          Compensation
        </h2>
        <span data-testid="saga-state">
          <ToneBadge tone={toneOfRunState(plan.state)}>{labelOfRunState(plan.state)}</ToneBadge>
        </span>
      </div>
      {plan.abort ? (
        <p style={{ margin: 0 }} data-testid="saga-abort">
          Aborted by <strong>{plan.abort.abortedBy}</strong> at {formatInstant(plan.abort.abortedAt, "seconds")}: {plan.abort.reason}
        </p>
      ) : (
        <p className="muted" style={{ margin: 0 }}>
          Not aborted. {plan.steps.length} succeeded step{plan.steps.length === 1 ? "" : "s"} registered an undo; aborting runs them newest first.
        </p>
      )}
      {plan.steps.length > 0 ? <StepsTable plan={plan} projectId={projectId} /> : null}
      {operator && plan.abort
        ? plan.steps.filter((s) => s.actions.length > 0).map((step) => <StepActions key={step.callId} step={step} pending={act.isPending} act={act.mutate} />)
        : null}
      {operator && plan.state === "running" ? (
        <details>
          <summary>Abort this run</summary>
          <NoteForm
            label="Reason (required, kept in the audit log)"
            submitLabel="Abort run"
            tone="danger"
            pending={act.isPending}
            onSubmit={(reason) => act.mutate({ action: "abort", reason })}
          />
        </details>
      ) : null}
      {!operator && plan.state === "compensation_failed" ? <p className="muted">Resolving a failed compensation needs the operator role.</p> : null}
      {act.error ? <ErrorState error={act.error} /> : null}
    </section>
  );
}

function StepsTable({ plan, projectId }: { plan: RunCompensation; projectId: string }) {
  const calls = `/projects/${encodeURIComponent(projectId)}/calls/`;
  return (
    <TableWrap label="Compensation plan">
      <table className="data stacked" data-testid="saga-steps">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Step undone</th>
            <th scope="col">Undo</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
          </tr>
        </thead>
        <tbody>
          {plan.steps.map((step, i) => (
            <tr key={step.callId} data-testid="saga-step" data-status={step.status}>
              <td data-label="#">{i + 1}</td>
              <td data-label="Step undone">
                <Link href={calls + encodeURIComponent(step.callId)}>{step.stepId ?? step.tool}</Link>
                {step.stepId ? <span className="muted"> · {step.tool}</span> : null}
              </td>
              <td data-label="Undo">
                {step.compensationCallId ? <Link href={calls + encodeURIComponent(step.compensationCallId)}>{step.compensation.tool}</Link> : <code>{step.compensation.tool}</code>}
                <pre tabIndex={0} style={{ margin: "4px 0 0", maxHeight: 120 }}>
                  {JSON.stringify(step.compensation.args ?? null, null, 2)}
                </pre>
              </td>
              <td data-label="Status">
                <ToneBadge tone={toneOfStepStatus(step.status)}>{labelOfStepStatus(step.status)}</ToneBadge>
                {step.error ? <div className="field-error">{step.error.message}</div> : null}
              </td>
              <td data-label="Attempts">{step.attempts}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

type Act = ReturnType<typeof useSagaActionMutation>["mutate"];

/**
 * A step not done has a way out (the step's `actions`): a failed undo stops the plan, so let it run
 * again or record by hand that nothing is left to undo; a pending or running one can be resolved by hand.
 */
function StepActions({ step, pending, act }: { step: CompensationStepWire; pending: boolean; act: Act }) {
  const failed = step.status === "failed";
  const resolve = (
    <NoteForm
      label={`Note on resolving ${step.compensation.tool} by hand (required, audited)`}
      submitLabel="Mark resolved by hand"
      pending={pending}
      onSubmit={(note) => act({ action: "resolve", callId: step.callId, note })}
    />
  );
  if (!failed) {
    return (
      <details data-testid="saga-open-step">
        <summary>
          Resolve <code>{step.compensation.tool}</code> ({step.status}) by hand
        </summary>
        {resolve}
      </details>
    );
  }
  return (
    <article className="card stack" data-testid="saga-failed-step" aria-label={`Failed compensation ${step.compensation.tool}`}>
      <strong>
        <code>{step.compensation.tool}</code> failed permanently{step.error ? `: ${step.error.message}` : ""}
      </strong>
      <div className="row" style={{ alignItems: "flex-start", gap: 24, flexWrap: "wrap" }}>
        <div style={{ flex: "1 1 260px" }}>{resolve}</div>
        {step.actions.includes("retry") ? (
          <div style={{ flex: "1 1 260px" }}>
            <NoteForm
              label={`Reason to retry ${step.compensation.tool} (required, audited)`}
              submitLabel="Retry compensation"
              pending={pending}
              onSubmit={(reason) => act({ action: "retry", callId: step.callId, reason })}
            />
          </div>
        ) : null}
      </div>
    </article>
  );
}
