"use client";

import Link from "next/link";
import type { CallStatus } from "@/lib/contract/v1";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useCallEventsQuery } from "@/lib/dashboard/queries/use-call-events-query";
import { useCallQuery } from "@/lib/dashboard/queries/use-call-query";
import { CallActions } from "./CallActions";
import { CallEventsTimeline } from "./CallEventsTimeline";
import { CallGenerations, useGenerations } from "./CallGenerations";
import { LoopCycles } from "./LoopCycles";
import { DecisionBadge } from "./DecisionBadge";
import { useProject } from "./ProjectContext";
import { ErrorState, Loading } from "./StateViews";
import "./explorer.css";

export function CallDetail({ callId }: { callId: string }) {
  const { projectId, can } = useProject();
  const call = useCallQuery(projectId, callId);
  const ledger = useCallEventsQuery(projectId, callId);
  const generations = useGenerations(projectId, call.data?.key ?? "");
  if (call.error) return <ErrorState error={call.error} onRetry={() => call.refetch()} />;
  if (call.isPending) return <Loading />;
  const c = call.data;
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <div className="stack">
      <p style={{ margin: 0 }}>
        <Link href={`${base}/calls`}>← Calls</Link>
      </p>
      <h1 style={{ margin: 0 }}>
        Call <code style={{ overflowWrap: "anywhere" }}>{c.callId}</code>
      </h1>
      <Facts call={c} base={base} />
      {generations ? <CallGenerations projectId={projectId} callId={c.callId} generations={generations} /> : null}
      {ledger.data ? <LoopCycles events={ledger.data.events} subject="call" /> : null}
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        {ledger.error ? (
          <ErrorState error={ledger.error} onRetry={() => ledger.refetch()} />
        ) : ledger.isPending ? (
          <Loading label="Loading the ledger…" />
        ) : (
          <CallEventsTimeline ledger={ledger.data} />
        )}
      </section>
      <section aria-labelledby="payload-title" className="stack">
        <h2 id="payload-title" style={{ marginBottom: 0 }}>Arguments and outcome</h2>
        {ledger.data && ledger.data.redactFields.length > 0 ? (
          <p className="muted" style={{ margin: 0 }}>
            Masked by the tool&apos;s policy: {ledger.data.redactFields.map((f) => <code key={f}>{f} </code>)}
          </p>
        ) : null}
        <h3 style={{ margin: 0, fontSize: "1em" }}>Arguments</h3>
        <pre data-testid="call-args">{ledger.data ? JSON.stringify(ledger.data.args, null, 2) : "…"}</pre>
        <h3 style={{ margin: 0, fontSize: "1em" }}>{c.error ? "Error" : "Result"}</h3>
        <pre data-testid="call-outcome">{JSON.stringify(c.error ?? ledger.data?.result ?? null, null, 2)}</pre>
      </section>
      {can("operator") ? <CallActions projectId={projectId} call={c} resentAs={generations?.find((g) => g.key !== c.key && generationNumber(g.key) > generationNumber(c.key)) ?? null} /> : null}
    </div>
  );
}

function Facts({ call: c, base }: { call: CallStatus; base: string }) {
  return (
    <div className="card">
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <DecisionBadge decision={c.status} />
        </dd>
        <dt>Tool</dt>
        <dd>
          <Link href={`${base}/calls?tool=${encodeURIComponent(c.tool)}`}>
            <code>{c.tool}</code>
          </Link>
        </dd>
        <dt>Run / step</dt>
        <dd>
          <Link href={`${base}/runs/${encodeURIComponent(c.runId)}`}>{c.runId}</Link> / {c.stepId ?? "—"}
        </dd>
        <dt>Agent</dt>
        <dd>{c.agentId ?? "root agent"}</dd>
        <dt>Scope</dt>
        <dd>{c.scope ?? "—"}</dd>
        <dt>Key</dt>
        <dd>
          <code>{c.key}</code>{" "}
          <Link href={`${base}/calls?key=${encodeURIComponent(c.key.replace(/:g\d+$/, ""))}`}>all generations</Link>
        </dd>
        <dt>Attempts / replays</dt>
        <dd>
          {c.attempt} / {c.replays}
        </dd>
        <dt>Args fingerprint</dt>
        <dd>
          <code>{c.argsFingerprint}</code>
        </dd>
        <dt>First seen</dt>
        <dd>{formatInstant(c.firstSeenAt, "seconds")}</dd>
        {c.completedAt ? (
          <>
            <dt>Completed</dt>
            <dd>{formatInstant(c.completedAt, "seconds")}</dd>
          </>
        ) : null}
        {c.status === "in_progress" && c.leaseExpiresAt ? (
          <>
            <dt>Lease expires</dt>
            <dd>{formatInstant(c.leaseExpiresAt, "seconds")}</dd>
          </>
        ) : null}
        <dt>Outcome kept until</dt>
        <dd>{formatInstant(c.expiresAt, "seconds")}</dd>
      </dl>
    </div>
  );
}

const generationNumber = (key: string) => Number(/:g(\d+)$/.exec(key)?.[1] ?? 1);
