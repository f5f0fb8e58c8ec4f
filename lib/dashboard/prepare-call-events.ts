import type { LedgerEvent } from "../contract/calls";
import { type Tone, actorOf, describeEvent, formatOffset, noteOf, toneOfEvent } from "./ledger-labels";

export interface CallTimelineEntry {
  id: string;
  at: string;
  /** "First seen" for the first event listed, then the time since it. */
  offset: string;
  label: string;
  tone: Tone;
  attempt: number;
  actor: string;
  note: string | null;
  /** The policy revision the decision was taken under. */
  policyVersion: number;
}

/**
 * A call's ledger as a timeline, oldest first: each begin, completion, heartbeat, lost lease,
 * eviction, resolution and resend with its time, attempt, decision and who caused it.
 * `truncated` ledgers start later than the call: their first entry is not called "First seen".
 */
export function prepareCallEvents(events: LedgerEvent[], truncated = false): CallTimelineEntry[] {
  const sorted = [...events].sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.id < b.id ? -1 : 1));
  const start = sorted.length > 0 ? Date.parse(sorted[0]!.at) : 0;
  return sorted.map((event, index) => ({
    id: event.id,
    at: event.at,
    offset: index === 0 && !truncated ? "First seen" : formatOffset(Date.parse(event.at) - start),
    label: describeEvent(event),
    tone: toneOfEvent(event),
    attempt: event.attempt,
    actor: actorOf(event),
    note: noteOf(event),
    policyVersion: event.policyVersion,
  }));
}
