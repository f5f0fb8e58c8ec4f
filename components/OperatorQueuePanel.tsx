"use client";

import Link from "next/link";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useOperatorQueueQuery } from "@/lib/dashboard/queries/use-operator-queue-query";
import { labelOfRunState, toneOfRunState } from "@/lib/dashboard/saga-labels";
import { ToneBadge } from "./DecisionBadge";
import { ErrorState, Loading } from "./StateViews";
import { TableWrap } from "./TableWrap";

/**
 * The overview's operators' queue: runs whose compensation stopped (or is still under way), calls
 * whose status check could not tell, long-running operations not finished, and how verify cases
 * were settled (automatically by a checker, or by hand).
 */
export function OperatorQueuePanel({ projectId, from, to, rangeLabel }: { projectId: string; from: string; to: string; rangeLabel: string }) {
  const queue = useOperatorQueueQuery(projectId, from, to);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const runHref = (runId: string) => `${base}/runs/${encodeURIComponent(runId)}`;
  const callHref = (callId: string) => `${base}/calls/${encodeURIComponent(callId)}`;
  if (queue.error) return <ErrorState error={queue.error} onRetry={() => queue.refetch()} />;
  if (queue.isPending) return <Loading label="Loading the operators' queue…" />;
  const { runs, uncheckedCalls, accepted, verify } = queue.data;
  return (
    <>
      <section aria-labelledby="attention-title" className="card stack" data-testid="attention">
        <h2 id="attention-title" style={{ margin: 0, fontSize: "1.1em" }}>
          Runs needing attention
        </h2>
        {runs.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>No aborted run is waiting: every compensation plan finished.</p>
        ) : (
          <TableWrap label="Runs needing attention">
            <table className="data stacked" data-testid="attention-runs">
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">State</th>
                  <th scope="col">Stopped at</th>
                  <th scope="col">Way out</th>
                  <th scope="col">Aborted</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((run) => {
                  const failed = run.steps.find((s) => s.status === "failed");
                  // The step that holds the plan, and what an operator can do with it (never nothing).
                  const open = failed ?? run.steps.find((s) => s.actions.length > 0);
                  return (
                    <tr key={run.runId} data-testid="attention-run">
                      <td data-label="Run">
                        <Link href={runHref(run.runId)}>{run.runId}</Link>
                      </td>
                      <td data-label="State">
                        <ToneBadge tone={toneOfRunState(run.state)}>{labelOfRunState(run.state)}</ToneBadge>
                      </td>
                      <td data-label="Stopped at">
                        {failed ? (
                          <>
                            <code>{failed.compensation.tool}</code>
                            {failed.error ? <span className="muted"> · {failed.error.message}</span> : null}
                          </>
                        ) : (
                          <span className="muted">under way</span>
                        )}
                      </td>
                      <td data-label="Way out" data-testid="attention-run-actions">
                        {open ? (
                          <Link href={runHref(run.runId)}>
                            {open.actions.map((a) => (a === "retry" ? "retry" : "resolve by hand")).join(" or ")} <code>{open.compensation.tool}</code>
                          </Link>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                      <td data-label="Aborted">{run.abort ? `${run.abort.reason} (${run.abort.abortedBy}, ${formatInstant(run.abort.abortedAt, "seconds")})` : "—"}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
        <h3 style={{ margin: 0, fontSize: "1em" }}>Status checks that could not tell</h3>
        {uncheckedCalls.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>None: every verify a checker saw was settled.</p>
        ) : (
          <TableWrap label="Status checks that could not tell">
            <table className="data stacked" data-testid="attention-checks">
              <thead>
                <tr>
                  <th scope="col">Call</th>
                  <th scope="col">Run</th>
                  <th scope="col">Checked</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {uncheckedCalls.map((call) => (
                  <tr key={call.callId} data-testid="attention-check">
                    <td data-label="Call">
                      <Link href={callHref(call.callId)}>{call.stepId ?? call.tool}</Link>
                      {call.stepId ? <span className="muted"> · {call.tool}</span> : null}
                    </td>
                    <td data-label="Run">
                      <Link href={runHref(call.runId)}>{call.runId}</Link>
                    </td>
                    <td data-label="Checked">{formatInstant(call.checkedAt, "seconds")}</td>
                    <td data-label="Why">{call.reason ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <p style={{ margin: 0 }} data-testid="verify-tally">
          {rangeLabel}: verify cases resolved automatically: <strong>{verify.found + verify.notFound}</strong> ({verify.found} found, {verify.notFound} not found) · by hand:{" "}
          <strong>{verify.byHand}</strong> · checks that could not tell: <strong>{verify.unknown}</strong>
        </p>
      </section>
      <section aria-labelledby="long-running-title" className="card stack" data-testid="long-running">
        <h2 id="long-running-title" style={{ margin: 0, fontSize: "1.1em" }}>
          Long-running, not finished
        </h2>
        {accepted.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>No accepted operation is waiting for its final outcome.</p>
        ) : (
          <TableWrap label="Accepted operations not finished">
            <table className="data stacked">
              <thead>
                <tr>
                  <th scope="col">Call</th>
                  <th scope="col">Operation</th>
                  <th scope="col">Accepted</th>
                  <th scope="col">Kept until</th>
                </tr>
              </thead>
              <tbody>
                {accepted.map((a) => (
                  <tr key={a.callId} data-testid="long-running-call">
                    <td data-label="Call">
                      <Link href={callHref(a.callId)}>{a.tool}</Link> <span className="muted">· run {a.runId}</span>
                    </td>
                    <td data-label="Operation">
                      <code>{a.operationId}</code>
                      {a.statusUrl ? <div className="muted" style={{ overflowWrap: "anywhere" }}>{a.statusUrl}</div> : null}
                    </td>
                    <td data-label="Accepted">{formatInstant(a.acceptedAt, "seconds")}</td>
                    <td data-label="Kept until">{formatInstant(a.expiresAt, "seconds")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    </>
  );
}
