import type { BeginResponse, CallStatus } from "../contract/v1";
import { type BeginDecision, type CallRecord, parseError, parseJsonText } from "../core/record";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** Domain decisions carry epoch ms; the wire carries ISO 8601. */
export function toWireDecision(decision: BeginDecision): BeginResponse {
  switch (decision.decision) {
    case "execute":
    case "verify":
      return { ...decision, leaseExpiresAt: iso(decision.leaseExpiresAt) };
    case "replay":
      return {
        ...decision,
        firstSeenAt: iso(decision.firstSeenAt),
        completedAt: iso(decision.completedAt),
        expiresAt: iso(decision.expiresAt),
      };
    case "refused":
      return { ...decision, original: { ...decision.original, completedAt: iso(decision.original.completedAt) } };
    default:
      return decision;
  }
}

export function toCallStatus(record: CallRecord): CallStatus {
  const result = record.state === "succeeded" ? parseJsonText(record.result) : undefined;
  const error = parseError(record.error);
  return {
    callId: record.id,
    key: record.key,
    tool: record.tool,
    runId: record.runId,
    stepId: record.stepId,
    scope: record.scope,
    agentId: record.agentId,
    toolCallId: record.toolCallId,
    status: record.state,
    attempt: record.attempt,
    replays: record.replays,
    argsFingerprint: record.argsFingerprint,
    ...(record.state === "succeeded" ? { result: result ?? null } : {}),
    ...(error ? { error } : {}),
    firstSeenAt: iso(record.firstSeenAt),
    completedAt: isoOrNull(record.completedAt),
    leaseExpiresAt: isoOrNull(record.leaseExpiresAt),
    expiresAt: iso(record.expiresAt),
  };
}
