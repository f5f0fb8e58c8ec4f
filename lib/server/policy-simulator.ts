import type { ToolPolicy } from "../core/policy";
import { type DecisionTally, type PastCall, simulatePolicy, tallyDecisions } from "../core/simulate-policy";
import type { SampledBegin } from "../store/ports/policy-store";

export interface Simulation {
  tool: string;
  sampled: number;
  from: number | null;
  to: number | null;
  policy: ToolPolicy;
  simulated: DecisionTally;
  actual: DecisionTally;
}

/**
 * Turns the ledger's latest begins of a tool into calls the planner can replay. The ledger keeps
 * each begin's fingerprint but only the record's (first, redacted) arguments, so a begin whose
 * fingerprint differs from its record's is replayed with opaque arguments that fingerprint apart;
 * step and scope come from the record. Loops are looked for within this tool's calls only.
 */
export function simulateSample(projectId: string, tool: string, policy: ToolPolicy, sample: readonly SampledBegin[]): Simulation {
  const begins = [...sample].reverse();
  const calls: PastCall[] = begins.map((begin) => ({
    projectId,
    tool,
    runId: begin.runId,
    stepId: begin.stepId,
    scope: begin.scope,
    toolCallId: begin.toolCallId,
    agentId: begin.agentId,
    args: argsOf(begin),
    at: begin.at,
    outcome: begin.recordState === "in_progress" ? null : (begin.recordState as PastCall["outcome"]),
  }));
  return {
    tool,
    sampled: begins.length,
    from: begins[0]?.at ?? null,
    to: begins.at(-1)?.at ?? null,
    policy,
    simulated: simulatePolicy(calls, policy),
    actual: tallyDecisions(begins),
  };
}

function argsOf(begin: SampledBegin): unknown {
  if (begin.recordFingerprint !== null && begin.argsFingerprint === begin.recordFingerprint) {
    return begin.recordArgs === null ? undefined : JSON.parse(begin.recordArgs);
  }
  return { "idemgate:fingerprint": begin.argsFingerprint ?? begin.recordFingerprint };
}
