import type { CallStatus } from "../contract/v1";

export interface TimelineEntry {
  at: string;
  label: string;
}

/**
 * A call's timeline as far as its record tells it (first seen, completion, lease, expiry), oldest
 * first. The per-call event ledger is not exposed to the dashboard yet.
 */
export function prepareCallTimeline(call: CallStatus): TimelineEntry[] {
  const entries: TimelineEntry[] = [{ at: call.firstSeenAt, label: `First seen (attempt 1 of run ${call.runId})` }];
  if (call.status === "in_progress" && call.leaseExpiresAt) entries.push({ at: call.leaseExpiresAt, label: `Lease of attempt ${call.attempt} expires` });
  if (call.completedAt) {
    const how = call.status === "succeeded" ? "Succeeded" : call.status === "failed" ? "Failed" : "Released (retryable failure)";
    entries.push({ at: call.completedAt, label: `${how} on attempt ${call.attempt}` });
  }
  if (call.replays > 0) entries.push({ at: call.completedAt ?? call.firstSeenAt, label: `Replayed ${call.replays}× since` });
  entries.push({ at: call.expiresAt, label: "Outcome expires (TTL)" });
  return entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
