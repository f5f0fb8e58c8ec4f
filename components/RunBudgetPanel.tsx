"use client";

import { type FormEvent, useState } from "react";
import { useRaiseRunBudgetMutation, useRunBudgetQuery } from "@/lib/dashboard/queries/use-run-budget-query";
import { ErrorState, Loading } from "./StateViews";

/** Parses a limit field: empty = unchanged, a number otherwise (NaN when it is not one). */
function limitOf(text: string): number | undefined {
  return text.trim() === "" ? undefined : Number(text);
}

/**
 * A run's spend against its budget and an operator's raise of it: audited, and read by the run's
 * next begin on any gate instance. Viewers see the spend; the API refuses them the raise.
 */
export function RunBudgetPanel({ projectId, runId }: { projectId: string; runId: string }) {
  const budget = useRunBudgetQuery(projectId, runId);
  const raise = useRaiseRunBudgetMutation(projectId, runId);
  const [calls, setCalls] = useState("");
  const [cost, setCost] = useState("");
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const maxCallsPerRun = limitOf(calls);
    const maxCostPerRun = limitOf(cost);
    if (maxCallsPerRun === undefined && maxCostPerRun === undefined) return setProblem("Give a call limit or a cost limit.");
    if ((maxCallsPerRun !== undefined && !(Number.isInteger(maxCallsPerRun) && maxCallsPerRun >= 1)) || (maxCostPerRun !== undefined && !(maxCostPerRun >= 0))) {
      return setProblem("Limits are positive numbers (calls: a whole number).");
    }
    if (reason.trim() === "") return setProblem("Give a reason for the audit log.");
    setProblem(null);
    raise.mutate({ ...(maxCallsPerRun !== undefined ? { maxCallsPerRun } : {}), ...(maxCostPerRun !== undefined ? { maxCostPerRun } : {}), reason: reason.trim() });
  }

  return (
    <section aria-labelledby="budget-title" className="card stack" data-testid="run-budget">
      <h2 id="budget-title" style={{ margin: 0 }}>Budget</h2>
      {budget.error ? <ErrorState error={budget.error} onRetry={() => budget.refetch()} /> : null}
      {budget.isPending ? <Loading label="Loading the budget…" /> : null}
      {budget.data ? (
        <p style={{ margin: 0 }} data-testid="run-budget-spend">
          Spent {budget.data.calls} call{budget.data.calls === 1 ? "" : "s"} and {budget.data.spent.toFixed(2)} {budget.data.currency}.{" "}
          {budget.data.maxCallsPerRun !== null || budget.data.maxCostPerRun !== null ? (
            <>
              Raised for this run to{" "}
              {[
                budget.data.maxCallsPerRun !== null ? `${budget.data.maxCallsPerRun} calls` : null,
                budget.data.maxCostPerRun !== null ? `${budget.data.maxCostPerRun.toFixed(2)} ${budget.data.currency}` : null,
              ]
                .filter(Boolean)
                .join(" and ")}
              .
            </>
          ) : (
            <span className="muted">Limits come from the tools&apos; policies.</span>
          )}
        </p>
      ) : null}
      <form onSubmit={submit} className="stack" aria-label="Raise this run's budget" noValidate>
        <p className="muted" style={{ margin: 0 }}>
          Raise this run&apos;s limits: its next call is checked against them, on every gate instance. Other runs keep the policy&apos;s limits.
        </p>
        <div className="row" style={{ gap: 12, flexWrap: "wrap" }}>
          <span className="stack" style={{ gap: 2 }}>
            <label htmlFor="budget-calls">Max calls for this run</label>
            <input id="budget-calls" inputMode="numeric" value={calls} onChange={(e) => setCalls(e.target.value)} />
          </span>
          <span className="stack" style={{ gap: 2 }}>
            <label htmlFor="budget-cost">Max cost for this run</label>
            <input id="budget-cost" inputMode="decimal" value={cost} onChange={(e) => setCost(e.target.value)} />
          </span>
        </div>
        <label htmlFor="budget-reason">Reason</label>
        <input id="budget-reason" value={reason} onChange={(e) => setReason(e.target.value)} aria-invalid={problem !== null || undefined} aria-describedby={problem ? "budget-error" : undefined} />
        {problem ? (
          <span id="budget-error" className="field-error">
            {problem}
          </span>
        ) : null}
        <div>
          <button type="submit" disabled={raise.isPending}>Raise budget</button>
        </div>
        {raise.isSuccess ? <span role="status">Budget raised.</span> : null}
        {raise.error ? <ErrorState error={raise.error} /> : null}
      </form>
    </section>
  );
}
