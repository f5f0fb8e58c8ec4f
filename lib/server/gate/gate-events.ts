import type { BeginLine } from "../../core/decide-begin";
import type { PreparedCall } from "../../core/prepare-call";
import type { CallRecord } from "../../core/record";
import type { EventType, GateEvent } from "../../store/ports/gate-store";
import { annotateWithEvent } from "../../telemetry/annotate-event";
import { newId } from "../ids";

export interface EventFields {
  type: EventType;
  decision: string;
  /** performance.now() when the request started: the event keeps the decision's latency. */
  startedAt: number;
  at: number;
  /** The policy revision the decision was taken under (not the one the record was created under). */
  policyVersion: number;
  argsMismatch?: boolean;
  loopStep?: boolean;
  detail?: Record<string, unknown> | null;
  /** Shadow mode: what the gate would have answered (`would_replay`, …). */
  shadowDecision?: string;
}

function base(fields: EventFields) {
  return {
    id: newId("evt", fields.at),
    type: fields.type,
    decision: fields.decision,
    argsMismatch: fields.argsMismatch ?? false,
    latencyUs: Math.round((performance.now() - fields.startedAt) * 1000),
    at: fields.at,
    policyVersion: fields.policyVersion,
    detail: fields.detail ? JSON.stringify(fields.detail) : null,
    loopStep: fields.loopStep ?? false,
    shadowDecision: fields.shadowDecision ?? null,
  };
}

/** A begin's event: who asked (this call, not whoever created the record) and its loop signature. */
export function beginEvent(record: CallRecord | null, call: PreparedCall, fields: EventFields): GateEvent {
  return annotated({
    ...base(fields),
    projectId: call.projectId,
    callId: record?.id ?? null,
    key: record?.key ?? call.key,
    tool: call.tool,
    runId: call.runId,
    agentId: call.agentId,
    toolCallId: call.toolCallId,
    attempt: record?.attempt ?? 0,
    argsFingerprint: call.argsFingerprint,
  });
}

/** Complete, heartbeat and lease-lost events: about the record's current attempt. */
export function recordEvent(record: CallRecord, fields: EventFields): GateEvent {
  return annotated({
    ...base(fields),
    projectId: record.projectId,
    callId: record.id,
    key: record.key,
    tool: record.tool,
    runId: record.runId,
    agentId: record.agentId,
    toolCallId: record.toolCallId,
    attempt: record.attempt,
    argsFingerprint: null,
  });
}

/** A begin's ledger line as decided (decide-begin.ts), with what only the service knows: ids, latency, the policy version, the time. */
export function lineEvent(line: BeginLine, call: PreparedCall, policyVersion: number, startedAt: number, at: number): GateEvent {
  return beginEvent(line.record, call, {
    type: "begin",
    decision: line.decision,
    startedAt,
    at,
    policyVersion,
    argsMismatch: line.argsMismatch,
    loopStep: line.loopStep,
    detail: line.detail,
    shadowDecision: line.shadowDecision,
  });
}

function annotated(event: GateEvent): GateEvent {
  annotateWithEvent(event);
  return event;
}
