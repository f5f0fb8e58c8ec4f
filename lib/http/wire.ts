import type { BeginRequest, BeginResponse, CallStatus, CompleteRequest, HeartbeatResponse } from "../contract/v1";
import type { CompleteOutcome } from "../core/plan-complete";
import type { BeginInput } from "../server/gate/gate-service";
import { type BeginDecision, type CallRecord, parseAccepted, parseError, parseJsonText } from "../core/record";

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
      if ("reason" in decision) return decision;
      return { ...decision, original: { ...decision.original, completedAt: iso(decision.original.completedAt) } };
    default:
      return decision;
  }
}

export function toCallStatus(record: CallRecord): CallStatus {
  const result = record.state === "succeeded" ? parseJsonText(record.result) : undefined;
  const error = parseError(record.error);
  const operation = record.state === "accepted" ? parseAccepted(record.result) : null;
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
    ...operation,
    firstSeenAt: iso(record.firstSeenAt),
    completedAt: isoOrNull(record.completedAt),
    leaseExpiresAt: isoOrNull(record.leaseExpiresAt),
    expiresAt: iso(record.expiresAt),
  };
}

/** A validated begin request as the service takes it (absent optional ids become null). */
export function toBeginInput(body: BeginRequest): BeginInput {
  return {
    tool: body.tool,
    runId: body.runId,
    stepId: body.stepId ?? null,
    scope: body.scope ?? null,
    toolCallId: body.toolCallId ?? null,
    agentId: body.agentId ?? null,
    args: body.args,
    waitMs: body.waitMs,
    ...(body.previewToken !== undefined ? { previewToken: body.previewToken } : {}),
  };
}

export function toCompleteOutcome(body: CompleteRequest): CompleteOutcome {
  switch (body.outcome) {
    case "accepted":
      return {
        outcome: "accepted",
        operationId: body.operationId,
        ...(body.statusUrl !== undefined ? { statusUrl: body.statusUrl } : {}),
        ...(body.cost !== undefined ? { cost: body.cost } : {}),
      };
    case "succeeded":
      return {
        outcome: "succeeded",
        result: body.result,
        ...(body.operationId !== undefined ? { operationId: body.operationId } : {}),
        ...(body.compensation !== undefined ? { compensation: body.compensation } : {}),
        ...(body.check !== undefined ? { check: body.check } : {}),
        ...(body.cost !== undefined ? { cost: body.cost } : {}),
      };
    case "failed":
      return {
        outcome: "failed",
        error: body.error,
        ...(body.operationId !== undefined ? { operationId: body.operationId } : {}),
        ...(body.check !== undefined ? { check: body.check } : {}),
        ...(body.cost !== undefined ? { cost: body.cost } : {}),
      };
  }
}

/** The lease while the attempt runs; null once it has completed (a beat racing its own complete). */
export function toHeartbeatResponse(record: CallRecord): HeartbeatResponse {
  const live = record.state === "in_progress" && record.leaseExpiresAt !== null;
  return { callId: record.id, status: record.state, leaseExpiresAt: live ? iso(record.leaseExpiresAt!) : null };
}
