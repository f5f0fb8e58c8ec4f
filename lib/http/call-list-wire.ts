import type { CallSummary, LedgerEvent, RunSummary } from "../contract/calls";
import { generationOf } from "../core/generations";
import type { CallListRow, RunRow } from "../store/ports/call-list";
import type { GateEvent } from "../store/ports/gate-store";

const iso = (ms: number): string => new Date(ms).toISOString();

export function toCallSummary(row: CallListRow): CallSummary {
  return {
    callId: row.id,
    tool: row.tool,
    key: row.key,
    runId: row.runId,
    stepId: row.stepId,
    scope: row.scope,
    agentId: row.agentId,
    status: row.state,
    attempts: row.attempt,
    replays: row.replays,
    generation: generationOf(row.key),
    createdAt: iso(row.firstSeenAt),
    updatedAt: iso(row.updatedAt),
    completedAt: row.completedAt === null ? null : iso(row.completedAt),
    lastDecision: row.lastDecision === null || row.lastDecisionAt === null ? null : { decision: row.lastDecision, at: iso(row.lastDecisionAt) },
  };
}

export function toLedgerEvent(event: GateEvent): LedgerEvent {
  return {
    id: event.id,
    callId: event.callId,
    at: iso(event.at),
    type: event.type,
    decision: event.decision,
    attempt: event.attempt,
    tool: event.tool,
    key: event.key,
    agentId: event.agentId,
    toolCallId: event.toolCallId,
    argsMismatch: event.argsMismatch,
    latencyUs: event.latencyUs,
    policyVersion: event.policyVersion,
    detail: event.detail === null ? null : JSON.parse(event.detail),
    shadowDecision: event.shadowDecision ?? null,
  };
}

export function toRunSummary(row: RunRow, sagaState: RunSummary["sagaState"]): RunSummary {
  return {
    runId: row.runId,
    startedAt: iso(row.startedAt),
    lastActivityAt: iso(row.lastActivityAt),
    calls: row.calls,
    tools: row.tools,
    agents: row.agents,
    succeeded: row.succeeded,
    failed: row.failed,
    inProgress: row.inProgress,
    begins: row.begins,
    dedupHits: row.dedupHits,
    blocked: row.blocked,
    sagaState,
  };
}
