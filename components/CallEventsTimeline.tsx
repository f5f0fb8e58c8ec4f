import type { CallLedger } from "@/lib/contract/calls";
import { formatInstant } from "@/lib/dashboard/format-time";
import { prepareCallEvents } from "@/lib/dashboard/prepare-call-events";
import { ArgsDiff } from "./ArgsDiff";
import { ToneBadge } from "./DecisionBadge";
import { EmptyState } from "./StateViews";

/** A call's ledger, oldest first: every decision with its time, attempt and who caused it. */
export function CallEventsTimeline({ ledger }: { ledger: CallLedger }) {
  const entries = prepareCallEvents(ledger.events, ledger.truncated);
  const sentArgs = new Map(ledger.events.flatMap((e) => (e.argsMismatch && hasArgs(e.detail) ? [[e.id, e.detail.args] as const] : [])));
  if (entries.length === 0) return <EmptyState title="No events">The ledger has no events for this call (they may have been purged).</EmptyState>;
  return (
    <>
      {ledger.truncated ? <p className="muted">Showing the latest {entries.length} events.</p> : null}
      <ol className="ledger" data-testid="call-timeline">
        {entries.map((e) => (
          <li key={e.id} style={{ ["--dot" as string]: `var(--tone-${e.tone})` }} data-testid="ledger-event">
            <div className="when">
              <time dateTime={e.at}>{formatInstant(e.at, "millis")}</time> · {e.offset}
            </div>
            <div className="what">
              <ToneBadge tone={e.tone}>{e.label}</ToneBadge>
              <span>attempt {e.attempt}</span>
              <span className="muted">{e.actor}</span>
              {e.policyVersion > 0 ? <span className="muted">policy v{e.policyVersion}</span> : null}
            </div>
            {e.note ? <div className="muted">{e.note}</div> : null}
            {sentArgs.has(e.id) ? (
              <ArgsDiff before={ledger.args} after={sentArgs.get(e.id)} beforeLabel="Arguments on record" afterLabel="This call sent" testId="replay-args-diff" />
            ) : null}
          </li>
        ))}
      </ol>
    </>
  );
}

const hasArgs = (detail: unknown): detail is { args: unknown } => typeof detail === "object" && detail !== null && "args" in detail;
