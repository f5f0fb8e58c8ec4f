import type { GateEvent } from "../../lib/store/ports/gate-store";

let counter = 0;

/** A begin's ledger event written straight to a store (storm detector tests): ids increase in call order. */
export function beginEvent(fields: { projectId: string; tool: string; at: number; decision: string; key: string; runId: string; policyVersion?: number }): GateEvent {
  return {
    id: `evt_${String(counter++).padStart(9, "0")}`,
    callId: null,
    agentId: null,
    toolCallId: null,
    type: "begin",
    attempt: 1,
    argsMismatch: false,
    latencyUs: 50,
    policyVersion: 1,
    detail: null,
    argsFingerprint: null,
    loopStep: false,
    ...fields,
  };
}
