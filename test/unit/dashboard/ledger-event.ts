import type { LedgerEvent } from "@/lib/contract/calls";

/** A first `execute` begin of call_1 as the operator API returns it; tests override only what they are about. */
export function ledgerEvent(over: Partial<LedgerEvent> = {}): LedgerEvent {
  return {
    id: "evt_1",
    callId: "call_1",
    at: "2026-01-01T00:00:00.000Z",
    type: "begin",
    decision: "execute",
    attempt: 1,
    tool: "t",
    key: "k",
    agentId: null,
    toolCallId: null,
    argsMismatch: false,
    latencyUs: 0,
    policyVersion: 0,
    detail: null,
    ...over,
  };
}
