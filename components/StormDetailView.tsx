"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo } from "react";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { StormRateChart } from "./StormRateChart";
import type { StormDetail } from "@/lib/contract/storms";
import { callsBehind } from "@/lib/dashboard/chart-links";
import { decisionsOf } from "@/lib/dashboard/decision-groups";
import { FIGURE_DEFINITIONS } from "@/lib/dashboard/figure-definitions";
import { explainStorm } from "@/lib/dashboard/explain-storm";
import { formatInstant } from "@/lib/dashboard/format-time";
import { prepareStormRate } from "@/lib/dashboard/prepare-storm-rate";
import { formatCount } from "@/lib/dashboard/format-count";
import { useDecisionsQuery } from "@/lib/dashboard/queries/use-decisions-query";
import { useKeyNameQuery } from "@/lib/dashboard/queries/use-key-name-query";
import { useStormQuery } from "@/lib/dashboard/queries/use-storm-query";
import { TableWrap } from "./TableWrap";

const int = new Intl.NumberFormat("en-US");
const BLOCKED_DUPLICATES =
  "Blocked begins of the tool in the storm's windows on a key that already had a call: repeats the loop detector (or the run's budget) stopped. The overview counts them under Blocked.";

/** One storm (any member): its figures, rate against the baseline, and who drove it, with links to the calls. */
export function StormDetailView({ stormId }: { stormId: string }) {
  const { projectId } = useProject();
  const detail = useStormQuery(projectId, stormId);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <div className="stack">
      <Link href={`${base}/storms`}>← All storms</Link>
      {detail.error ? (
        <>
          <h1>Storm</h1>
          <ErrorState error={detail.error} onRetry={() => detail.refetch()} />
        </>
      ) : detail.isPending ? (
        <>
          <h1>Storm</h1>
          <Loading label="Loading the storm…" />
        </>
      ) : (
        <StormDetailBody detail={detail.data} base={base} />
      )}
    </div>
  );
}

function StormDetailBody({ detail, base }: { detail: StormDetail; base: string }) {
  const { storm } = detail;
  const chart = useMemo(() => prepareStormRate(detail), [detail]);
  const router = useRouter();
  // The storm's calls: its tool's dedup hits in the windows it judged (the span its figures count),
  // not every call of the tool in a range.
  const stormTo = storm.endedAt ?? new Date(Date.parse(storm.lastWindowAt) + storm.windowSeconds * 1000).toISOString();
  // Duplicates the loop detector blocked are Blocked on every page (not dedup hits: the gate did
  // not answer from the record, it stopped the run). A blocked begin on a key that already had a
  // call is such a duplicate; the storm page shows them beside its hits so every duplicate is counted.
  const blocked = useDecisionsQuery(storm.projectId, { decision: "blocked", tool: storm.tool, decidedFrom: storm.startedAt, decidedTo: stormTo });
  const blockedDuplicates = blocked.data ? blocked.data.total - blocked.data.withoutRecord : null;
  const blockedHref = callsBehind(base, { decisions: ["blocked"], tool: storm.tool, from: storm.startedAt, to: stormTo });
  const stormCalls = (window: { from: number | string; to: number | string }) => callsBehind(base, { decisions: decisionsOf("dedupHits"), tool: storm.tool, ...window });
  const callsHref = (extra: Record<string, string> = {}) => {
    const href = stormCalls({ from: storm.startedAt, to: stormTo }) ?? `${base}/calls?${new URLSearchParams({ tool: storm.tool })}`;
    return Object.keys(extra).length > 0 ? `${href}&${new URLSearchParams(extra)}` : href;
  };
  return (
    <>
      <div className="row spread">
        <h1 style={{ marginBottom: 0 }}>
          Storm on <code>{storm.tool}</code>
        </h1>
        <span className={`badge ${storm.status}`}>{storm.status}</span>
      </div>
      <section className="card" aria-labelledby="storm-why-title" data-testid="storm-why">
        <h2 id="storm-why-title" style={{ margin: 0, fontSize: "1.1em" }}>
          Why this is a storm
        </h2>
        {explainStorm(storm).map((line) => (
          <p key={line} style={{ margin: "6px 0 0" }}>
            {line}
          </p>
        ))}
      </section>
      <dl className="facts card">
        <dt>Started</dt>
        <dd>{formatInstant(storm.startedAt, "seconds")}</dd>
        <dt>{storm.endedAt ? "Ended" : "Last window judged"}</dt>
        <dd>{formatInstant(storm.endedAt ?? storm.lastWindowAt, "seconds")}</dd>
        <dt>Window</dt>
        <dd>{storm.windowSeconds} s</dd>
        <dt>Baseline → threshold</dt>
        <dd>
          {formatCount(storm.baseline)} → {formatCount(storm.threshold)} dedup hits per window
        </dd>
        <dt>Peak</dt>
        <dd>
          {int.format(storm.peakHits)} dedup hits in one window ({int.format(Math.round(storm.peakPerMinute))} / min)
        </dd>
        <dt title={FIGURE_DEFINITIONS.stormHits}>Dedup hits</dt>
        <dd data-testid="storm-dedup-hits" title={FIGURE_DEFINITIONS.stormHits}>
          <Link href={callsHref()}>{int.format(storm.totalHits)}</Link> <span className="muted">(replay, in progress, refused)</span>
        </dd>
        <dt title={BLOCKED_DUPLICATES}>Duplicates blocked</dt>
        <dd data-testid="storm-blocked-duplicates" data-count={blockedDuplicates ?? ""} title={BLOCKED_DUPLICATES}>
          {blockedDuplicates === null ? (
            "…"
          ) : blockedHref ? (
            <Link href={blockedHref}>{int.format(blockedDuplicates)}</Link>
          ) : (
            int.format(blockedDuplicates)
          )}{" "}
          <span className="muted">(the loop detector stopped a repeat of a key; counted as Blocked, not as dedup hits)</span>
        </dd>
        <dt>Duplicates in all</dt>
        <dd data-testid="storm-duplicates">{blockedDuplicates === null ? "…" : int.format(storm.totalHits + blockedDuplicates)}</dd>
        <dt>Runs involved</dt>
        <dd>{storm.runsInvolved}</dd>
        <dt>Policy revision</dt>
        <dd>{storm.policyVersion}</dd>
      </dl>
      <section aria-labelledby="rate-title" className="card">
        <div className="row spread">
          <h2 id="rate-title" style={{ margin: 0, fontSize: "1.1em" }}>
            Dedup hits per window vs baseline
          </h2>
          <Link href={callsHref()}>See the calls of this storm</Link>
        </div>
        <p className="muted" style={{ margin: "4px 0 8px", fontSize: "0.9em" }}>
          {chart.bucketSeconds === storm.windowSeconds
            ? `One bar per ${storm.windowSeconds} s window`
            : `Each bar averages ${chart.bucketSeconds / storm.windowSeconds} windows`}
          ; the storm&apos;s span is shaded. Click a bar for its dedup hits.
        </p>
        <StormRateChart
          data={chart}
          onSelect={(p) => {
            const href = stormCalls({ from: p.at, to: p.end });
            if (href) router.push(href);
          }}
        />
      </section>
      <div className="storm-drivers" style={{ display: "grid", gap: 12, gridTemplateColumns: "repeat(auto-fit, minmax(280px, 1fr))" }}>
        <DriversTable
          title="Heaviest runs"
          column="Run"
          empty="No runs recorded for this storm."
          rows={storm.topRuns.map((r) => ({ name: r.runId, hits: r.hits, href: `${base}/runs/${encodeURIComponent(r.runId)}` }))}
        />
        <DriversTable
          title="Heaviest keys"
          column="Key"
          empty="No keys recorded for this storm."
          rows={storm.topKeys.map((k) => ({ name: k.key, hits: k.hits, href: callsHref({ key: k.key }), isKey: true }))}
        />
      </div>
    </>
  );
}

function DriversTable({ title, column, empty, rows }: { title: string; column: string; empty: string; rows: { name: string; hits: number; href: string; isKey?: boolean }[] }) {
  const id = `drivers-${column.toLowerCase()}`;
  return (
    <section aria-labelledby={id} className="card" data-testid={id}>
      <h2 id={id} style={{ marginTop: 0, fontSize: "1.1em" }}>
        {title}
      </h2>
      {rows.length === 0 ? (
        <EmptyState title={empty} />
      ) : (
        <TableWrap label="Runs and keys in the storm">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">{column}</th>
                <th scope="col">Dedup hits</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.name}>
                  <td style={{ overflowWrap: "anywhere" }}>
                    <Link href={r.href}>{r.isKey ? <KeyName keyHash={r.name} /> : <code>{r.name}</code>}</Link>
                  </td>
                  <td>{int.format(r.hits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

/** A key by the step and run of its call where one holds it; the hash (shortened, whole on hover) otherwise. */
function KeyName({ keyHash }: { keyHash: string }) {
  const { projectId } = useProject();
  const name = useKeyNameQuery(projectId, keyHash);
  return (
    <code title={keyHash} data-testid="key-name">
      {name.data ?? (keyHash.length > 16 ? `${keyHash.slice(0, 12)}…` : keyHash)}
    </code>
  );
}
