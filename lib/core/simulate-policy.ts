import { KeyDerivationError } from "./keys";
import { type CallSignature, detectLoop, isLoopStep, loopHistorySize } from "./loop-detector";
import { planBegin } from "./plan-begin";
import { type CompleteOutcome, planComplete } from "./plan-complete";
import type { EffectivePolicy, ToolPolicy } from "./policy";
import { type BeginCall, prepareCall } from "./prepare-call";
import type { CallRecord, RecordState } from "./record";

/** A past call of one tool as far as the ledger knows it, oldest first. */
export interface PastCall extends BeginCall {
  at: number;
  /** How the real attempt ended, if it ran: a simulated execute ends the same way. */
  outcome: RecordState | null;
}

export interface DecisionTally {
  executed: number;
  deduped: number;
  refused: number;
  conflicts: number;
  blocked: number;
  loopWarnings: number;
  rejected: number;
}

export const emptyTally = (): DecisionTally => ({
  executed: 0,
  deduped: 0,
  refused: 0,
  conflicts: 0,
  blocked: 0,
  loopWarnings: 0,
  rejected: 0,
});

/**
 * Replays past calls, in order, through the real planner under a draft policy: what would have
 * run, been deduped, refused or blocked. Each simulated execute completes at once, the way the
 * real attempt ended, so the draft's TTL, failure caching and duplicate handling all apply.
 */
export function simulatePolicy(calls: readonly PastCall[], policy: ToolPolicy): DecisionTally {
  const tally = emptyTally();
  const records = new Map<string, CallRecord>();
  const runs = new Map<string, CallSignature[]>();
  const effective: EffectivePolicy = { policy, version: 0 };
  let ids = 0;

  for (const past of calls) {
    let call;
    try {
      call = prepareCall(past, policy);
    } catch (error) {
      if (!(error instanceof KeyDerivationError)) throw error;
      tally.rejected++;
      continue;
    }
    const steps = runs.get(call.runId) ?? [];
    runs.set(call.runId, steps);
    const signature: CallSignature = { tool: call.tool, argsFingerprint: call.argsFingerprint };
    if (policy.loop.enabled && detectLoop([...steps.slice(-loopHistorySize(policy.loop)), signature], policy.loop)) {
      if (policy.loop.action === "block") {
        tally.blocked++;
        steps.push(signature);
        continue;
      }
      tally.loopWarnings++;
    }

    const env = { now: past.at, policy: effective, newCallId: () => `sim-${++ids}`, newLeaseToken: () => `lease-${ids}` };
    const plan = planBegin(records.get(call.key) ?? null, call, env);
    const decision = plan.decision;
    if (isLoopStep(decision, false)) steps.push(signature);
    switch (decision.decision) {
      case "execute":
      case "verify": {
        tally.executed++;
        const done = planComplete(plan.record, plan.record.leaseToken!, outcomeLike(past.outcome), effective, past.at);
        if (done.op === "update" && plan.record.key === call.key) records.set(call.key, done.record);
        break;
      }
      case "replay":
        records.set(call.key, { ...plan.record, replays: plan.record.replays + 1 });
        tally.deduped++;
        break;
      case "in_progress":
        tally.deduped++;
        break;
      case "refused":
        tally.refused++;
        break;
      case "conflict":
        tally.conflicts++;
        break;
      default:
        break;
    }
  }
  return tally;
}

function outcomeLike(state: RecordState | null): CompleteOutcome {
  if (state === "failed") return { outcome: "failed", error: { message: "failed", retryable: false } };
  if (state === "released") return { outcome: "failed", error: { message: "failed", retryable: true } };
  return { outcome: "succeeded" };
}

/** The decisions actually taken, in the same buckets. */
export function tallyDecisions(decisions: readonly { decision: string; loopWarned: boolean }[]): DecisionTally {
  const tally = emptyTally();
  for (const { decision, loopWarned } of decisions) {
    if (loopWarned) tally.loopWarnings++;
    if (decision === "execute" || decision === "verify") tally.executed++;
    else if (decision === "replay" || decision === "in_progress") tally.deduped++;
    else if (decision === "refused") tally.refused++;
    else if (decision === "conflict") tally.conflicts++;
    else if (decision === "blocked") tally.blocked++;
  }
  return tally;
}
