"use client";

import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { PolicyOverrides } from "@/lib/core/policy";
import { formatInstant } from "@/lib/dashboard/format-time";
import { describeDrift, describeSimulationGaps, formatChange, prepareSimulationRows, type SimulationRow } from "@/lib/dashboard/prepare-simulation";
import { usePolicySimulationQuery } from "@/lib/dashboard/queries/use-policies-query";
import { useDebouncedValue } from "@/lib/dashboard/use-debounced-value";
import { ErrorState, Loading } from "./StateViews";
import { TableWrap } from "./TableWrap";

interface Props {
  projectId: string;
  tool: string;
  /** The draft layer as JSON when it is valid and differs from what is saved; null otherwise. JSON, so equal drafts compare equal. */
  draftJson: string | null;
}

/** Before saving: the tool's latest calls replayed through the draft, side by side with what was decided. */
export function PolicySimulation({ projectId, tool, draftJson }: Props) {
  const settled = useDebouncedValue(draftJson, 400);
  const draft = useMemo(() => (settled === null ? null : (JSON.parse(settled) as PolicyOverrides)), [settled]);
  const simulation = usePolicySimulationQuery(projectId, tool, draft);
  return (
    <section className="card stack" aria-labelledby="simulation-heading" data-testid="policy-simulation" aria-busy={simulation.isFetching}>
      <h2 id="simulation-heading" style={{ margin: 0, fontSize: "1.1em" }}>
        What this draft would have decided
      </h2>
      {draftJson === null ? (
        <p className="muted" style={{ margin: 0 }}>
          Change a field and the tool&apos;s latest calls are replayed through the draft here, before you save.
        </p>
      ) : simulation.error ? (
        <ErrorState error={simulation.error} onRetry={() => simulation.refetch()} />
      ) : !simulation.data ? (
        <Loading label="Replaying the latest calls…" />
      ) : simulation.data.sampled === 0 ? (
        <p className="muted" style={{ margin: 0 }}>
          No calls of this tool yet: nothing to replay.
        </p>
      ) : (
        <SimulationResult
          rows={prepareSimulationRows(simulation.data.actual, simulation.data.simulated, simulation.data.baseline ?? simulation.data.actual)}
          drift={simulation.data.drift ? describeDrift(simulation.data.drift, simulation.data.revision ?? null) : []}
          sampled={simulation.data.sampled}
          from={simulation.data.from}
          to={simulation.data.to}
          gaps={describeSimulationGaps(simulation.data.unreplayable, simulation.data.assumedOutcomes)}
          stale={simulation.isPlaceholderData || settled !== draftJson}
        />
      )}
    </section>
  );
}

interface ResultProps {
  rows: SimulationRow[];
  sampled: number;
  from: string | null;
  to: string | null;
  gaps: string[];
  drift: string[];
  stale: boolean;
}

function SimulationResult({ rows, sampled, from, to, gaps, drift, stale }: ResultProps) {
  // The recorded column is shown only where it differs from the policy in force replayed.
  const showRecorded = rows.some((r) => r.actual !== r.current);
  const changed = rows.some((r) => r.change !== 0);
  return (
    <div className="stack" style={{ opacity: stale ? 0.6 : 1 }}>
      <p style={{ margin: 0 }} role="status">
        {changed ? "Saving changes how these calls are decided." : "Same decisions as now for these calls."}{" "}
        <span className="muted">
          The last {sampled.toLocaleString("en")} {sampled === 1 ? "call" : "calls"}
          {from && to ? ` (${formatInstant(from)} – ${formatInstant(to)})` : ""}, replayed in order.
        </span>
      </p>
      {drift.length > 0 && (
        <ul className="muted" data-testid="simulation-drift" style={{ margin: 0, paddingLeft: "1.2em" }}>
          {drift.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {gaps.length > 0 && (
        <ul className="muted" data-testid="simulation-gaps" style={{ margin: 0, paddingLeft: "1.2em" }}>
          {gaps.map((gap) => (
            <li key={gap}>{gap}</li>
          ))}
        </ul>
      )}
      <figure className="chart" style={{ margin: 0, height: 200 }} aria-label="Decisions now and under the draft">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
            <XAxis dataKey="label" stroke="var(--muted)" fontSize={12} interval={0} />
            <YAxis allowDecimals={false} stroke="var(--muted)" fontSize={12} width={40} />
            <Tooltip contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", color: "var(--fg)" }} />
            <Legend />
            <Bar dataKey="current" name="Policy in force" fill="var(--muted)" isAnimationActive={false} />
            <Bar dataKey="draft" name="With this draft" fill="var(--accent)" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <TableWrap label="Decisions now and under the draft, as a table">
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Decision</th>
              {showRecorded && (
                <th scope="col" title="As recorded (shadow mode: what enforce would have answered)">
                  Decided
                </th>
              )}
              <th scope="col" title="The policy in force, replayed over the same calls: what the draft is compared with">
                Policy in force
              </th>
              <th scope="col">With this draft</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key} data-testid="simulation-row" data-decision={row.key} data-draft={row.draft} data-current={row.current} data-actual={row.actual}>
                <th scope="row" style={{ fontWeight: "normal" }}>
                  {row.label}
                </th>
                {showRecorded && <td>{row.actual.toLocaleString("en")}</td>}
                <td>{row.current.toLocaleString("en")}</td>
                <td>{row.draft.toLocaleString("en")}</td>
                <td style={row.change === 0 ? { color: "var(--muted)" } : { fontWeight: 600 }}>{formatChange(row.change)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </div>
  );
}
