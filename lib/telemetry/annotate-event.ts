import { trace } from "@opentelemetry/api";
import type { GateEvent } from "../store/ports/gate-store";

/** What the ledger records about a decision, also on the span that made it. */
export function annotateWithEvent(event: GateEvent): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttributes({
    "gen_ai.tool.name": event.tool,
    ...(event.toolCallId ? { "gen_ai.tool.call.id": event.toolCallId } : {}),
    "idemgate.key": event.key,
    "idemgate.run_id": event.runId,
    ...(event.agentId ? { "idemgate.agent_id": event.agentId } : {}),
    ...(event.callId ? { "idemgate.call_id": event.callId } : {}),
    "idemgate.attempt": event.attempt,
    "idemgate.policy_version": event.policyVersion,
    "idemgate.args_mismatch": event.argsMismatch,
  });
  if (event.type === "lease_lost") span.addEvent("idemgate.lease_lost", { "idemgate.attempt": event.attempt });
}
