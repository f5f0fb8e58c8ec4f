import type { CompleteOutcome } from "../core/plan-complete";
import type { BeginDecision, CallRecord } from "../core/record";
import { type BeginInput, GateService } from "../server/gate/gate-service";
import { instruments } from "./instruments";
import { withSpan } from "./spans";

/**
 * The gate service with every begin, complete and heartbeat as a span (`idemgate.begin`, …) and
 * the decision metrics. Spans start in the caller's trace when the route continued a
 * `traceparent`; the ledger event of each decision annotates its span (see annotateWithEvent).
 */
export class TracedGateService extends GateService {
  override async begin(projectId: string, input: BeginInput): Promise<BeginDecision> {
    const started = performance.now();
    return withSpan(
      "idemgate.begin",
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": input.tool,
        ...(input.toolCallId ? { "gen_ai.tool.call.id": input.toolCallId } : {}),
        "idemgate.run_id": input.runId,
        ...(input.agentId ? { "idemgate.agent_id": input.agentId } : {}),
        "idemgate.project_id": projectId,
      },
      async (span) => {
        const decision = await super.begin(projectId, input);
        span.setAttribute("idemgate.decision", decision.decision);
        // Shadow mode: the real answer (execute) and what the gate would have answered, both.
        const shadow = decision.decision === "execute" ? decision.shadowDecision : undefined;
        if (shadow !== undefined) span.setAttribute("idemgate.shadow_decision", shadow);
        if (decision.decision === "blocked") span.setAttribute("idemgate.blocked_reason", decision.reason);
        const { decisions, beginDuration } = instruments();
        decisions.add(1, { tool: input.tool, decision: decision.decision, ...(shadow !== undefined ? { shadow_decision: shadow } : {}) });
        beginDuration.record((performance.now() - started) / 1000, { tool: input.tool, decision: decision.decision });
        return decision;
      },
    );
  }

  override complete(projectId: string, callId: string, leaseToken: string, outcome: CompleteOutcome): Promise<CallRecord> {
    return withSpan("idemgate.complete", { "gen_ai.operation.name": "execute_tool", "idemgate.call_id": callId }, async (span) => {
      const record = await super.complete(projectId, callId, leaseToken, outcome);
      span.setAttribute("idemgate.outcome", record.state);
      if (outcome.outcome !== "accepted" && outcome.check) {
        span.setAttribute("idemgate.check", outcome.check);
        instruments().statusChecks.add(1, { tool: record.tool, outcome: outcome.check });
      }
      return record;
    });
  }

  override reportUnknownCheck(projectId: string, callId: string, leaseToken: string, reason: string | null): Promise<CallRecord> {
    return withSpan("idemgate.check", { "idemgate.call_id": callId, "idemgate.check": "unknown" }, async () => {
      const record = await super.reportUnknownCheck(projectId, callId, leaseToken, reason);
      instruments().statusChecks.add(1, { tool: record.tool, outcome: "unknown" });
      return record;
    });
  }

  override heartbeat(projectId: string, callId: string, leaseToken: string, extendSeconds?: number): Promise<CallRecord> {
    return withSpan("idemgate.heartbeat", { "gen_ai.operation.name": "execute_tool", "idemgate.call_id": callId }, () =>
      super.heartbeat(projectId, callId, leaseToken, extendSeconds),
    );
  }
}
