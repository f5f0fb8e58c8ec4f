"use client";

import Link from "next/link";
import type { CallSummary } from "@/lib/contract/calls";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useCallsQuery } from "@/lib/dashboard/queries/use-calls-query";
import { DecisionBadge } from "./DecisionBadge";
import { TableWrap } from "./TableWrap";

const GENERATION = /:g(\d+)$/;
const generationOf = (key: string) => Number(GENERATION.exec(key)?.[1] ?? 1);
export const baseKeyOf = (key: string) => key.replace(GENERATION, "");

/** The calls of one key, every generation (an approved resend runs under `key:g2`, …), oldest first. */
export function useGenerations(projectId: string, key: string): CallSummary[] | undefined {
  const calls = useCallsQuery(projectId, { key: baseKeyOf(key), limit: 100 });
  const rows = calls.data?.pages.flatMap((page) => page.calls);
  return rows?.filter((c) => baseKeyOf(c.key) === baseKeyOf(key)).sort((a, b) => generationOf(a.key) - generationOf(b.key));
}

/**
 * A call's generations and what each one did (issue #38 §1): a used resend shows on the original
 * call's page, not only on the call it started.
 */
export function CallGenerations({ projectId, callId, generations }: { projectId: string; callId: string; generations: CallSummary[] }) {
  if (generations.length < 2) return null;
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <section aria-labelledby="generations-title" className="stack" data-testid="call-generations">
      <h2 id="generations-title" style={{ margin: 0 }}>
        Generations
      </h2>
      <p className="muted" style={{ margin: 0 }}>
        An approved resend runs the call again under a new generation of its key, so the downstream service sees a new request.
      </p>
      <TableWrap label="Generations of this call's key">
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Generation</th>
              <th scope="col">Call</th>
              <th scope="col">Status</th>
              <th scope="col">First seen</th>
            </tr>
          </thead>
          <tbody>
            {generations.map((g) => (
              <tr key={g.callId} data-testid="generation-row" aria-current={g.callId === callId ? "true" : undefined}>
                <th scope="row" style={{ fontWeight: g.callId === callId ? 700 : "normal" }}>
                  g{generationOf(g.key)}
                  {g.callId === callId ? " (this call)" : ""}
                </th>
                <td>
                  {g.callId === callId ? <code>{g.callId}</code> : <Link href={`${base}/calls/${encodeURIComponent(g.callId)}`}>{g.callId}</Link>}
                </td>
                <td>
                  <DecisionBadge decision={g.status} />
                </td>
                <td>{formatInstant(g.createdAt, "seconds")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}
