"use client";

import Link from "next/link";
import { formatInstant } from "@/lib/dashboard/format-time";
import { prepareRunTimeline } from "@/lib/dashboard/prepare-run-timeline";
import { useRunQuery } from "@/lib/dashboard/queries/use-runs-query";
import { useSagaQuery } from "@/lib/dashboard/queries/use-saga-query";
import { labelOfStepStatus, toneOfStepStatus } from "@/lib/dashboard/saga-labels";
import { DecisionBadge, ToneBadge } from "./DecisionBadge";
import { useProject } from "./ProjectContext";
import { LoopCycles } from "./LoopCycles";
import { RunBudgetPanel } from "./RunBudgetPanel";
import { RunTimeline } from "./RunTimeline";
import { SagaPanel } from "./SagaPanel";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import "./explorer.css";
import { TableWrap } from "./TableWrap";

/** A run's steps and attempts across its subagents: lanes over time, then the same as a table. */
export function RunDetail({ runId }: { runId: string }) {
  const { projectId } = useProject();
  const run = useRunQuery(projectId, runId);
  const saga = useSagaQuery(projectId, runId);
  const undoOf = new Map((saga.data?.steps ?? []).map((step) => [step.callId, step]));
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const header = (
    <>
      <p style={{ margin: 0 }}>
        <Link href={`${base}/runs`}>← Runs</Link>
      </p>
      <h1 style={{ margin: 0 }}>
        Run <code style={{ overflowWrap: "anywhere" }}>{runId}</code>
      </h1>
    </>
  );
  if (run.error) return <div className="stack">{header}<ErrorState error={run.error} onRetry={() => run.refetch()} /></div>;
  if (run.isPending) return <div className="stack">{header}<Loading label="Loading the run…" /></div>;
  const timeline = prepareRunTimeline(run.data);
  const started = run.data.events[0]?.at ?? run.data.calls[0]?.createdAt;
  return (
    <div className="stack">
      {header}
      <p className="muted" style={{ margin: 0 }}>
        {run.data.calls.length} call{run.data.calls.length === 1 ? "" : "s"} · {timeline.lanes.length} agent{timeline.lanes.length === 1 ? "" : "s"} ·{" "}
        {run.data.events.length} events{started ? ` · started ${formatInstant(started, "seconds")}` : ""} ·{" "}
        <Link href={`${base}/calls?runId=${encodeURIComponent(runId)}`}>filter the calls list by this run</Link>
      </p>
      {run.data.truncated ? <p className="muted">This run is long: only its oldest calls and events are shown.</p> : null}
      <LoopCycles events={run.data.events} subject="run" />
      <SagaPanel runId={runId} />
      <RunBudgetPanel projectId={projectId} runId={runId} />
      <section aria-labelledby="lanes-title" className="card stack">
        <h2 id="lanes-title" style={{ margin: 0 }}>Timeline</h2>
        {timeline.lanes.length === 0 ? <EmptyState title="No events" /> : <RunTimeline timeline={timeline} projectId={projectId} />}
      </section>
      <section aria-labelledby="steps-title" className="stack">
        <h2 id="steps-title" style={{ margin: 0 }}>Steps and attempts</h2>
        <TableWrap label="Steps of the run">
          <table className="data stacked" data-testid="run-steps">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Step / tool</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Decisions</th>
                <th scope="col">Compensation</th>
              </tr>
            </thead>
            <tbody>
              {timeline.steps.map((s, i) => (
                <tr key={`${s.agent}:${s.callId ?? i}`}>
                  <td data-label="Agent">{s.agent}</td>
                  <td data-label="Step / tool">
                    {s.callId ? <Link href={`${base}/calls/${encodeURIComponent(s.callId)}`}>{s.stepId ?? s.tool}</Link> : (s.stepId ?? s.tool)}
                    {s.stepId ? <span className="muted"> · {s.tool}</span> : null}
                  </td>
                  <td data-label="Status">{s.status ? <DecisionBadge decision={s.status} /> : <span className="muted">no record</span>}</td>
                  <td data-label="Attempts">{s.attempts}</td>
                  <td data-label="Decisions">
                    <span className="row" style={{ gap: 4, display: "inline-flex" }}>
                      {s.decisions.map((d, j) => (
                        <ToneBadge key={j} tone={d.tone}>
                          {d.decision.replace(/_/g, " ")}
                          {d.count > 1 ? ` ×${d.count}` : ""}
                        </ToneBadge>
                      ))}
                    </span>
                  </td>
                  <td data-label="Compensation">
                    {s.callId && undoOf.has(s.callId) ? (
                      <ToneBadge tone={toneOfStepStatus(undoOf.get(s.callId)!.status)}>
                        {undoOf.get(s.callId)!.compensation.tool}: {labelOfStepStatus(undoOf.get(s.callId)!.status)}
                      </ToneBadge>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </section>
    </div>
  );
}
