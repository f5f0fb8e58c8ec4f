import { kindOf } from "./begin-guards";
import { type BudgetStatus, type RunSpend, budgetRefusal, executionCharge, toMicros } from "./budget";
import { type BeginFacts, decideBegin } from "./decide-begin";
import { type ArgsFingerprinter, ephemeralFingerprinter } from "./fingerprint";
import { generationKey, isCachedOutcome } from "./generations";
import { type CallSignature, detectLoop, loopHistorySize } from "./loop-detector";
import { alwaysExecutes } from "./plan-begin";
import { isCompensationKey } from "./plan-compensation";
import { type CompleteOutcome, planComplete, planHeartbeat } from "./plan-complete";
import { type EffectivePolicy, type ToolPolicy, hasBudget } from "./policy";
import type { PreparedCall } from "./prepare-call";
import { type BeginDecision, type CallRecord, leaseIsLive } from "./record";
import { UNREPLAYABLE, draftKey } from "./simulation-keys";
import type { LedgerEntry, PastBegin, PastEviction, PastHeartbeat, PastOutcome } from "./simulation-ledger";
import { type BeginVerdict, type SimulatedDecision, tallyVerdicts } from "./simulation-tally";

export interface SimulationResult extends ReturnType<typeof tallyVerdicts> {
  verdicts: BeginVerdict[];
  /** Sampled calls the draft runs that never ran: assumed to end as the attempt they were deduplicated against. */
  assumedOutcomes: number;
}

/** A simulated attempt, waiting for the real attempt whose outcome it takes. */
interface Holder {
  key: string;
  leaseToken: string;
  runId: string;
}

const attemptId = (callId: string, attempt: number) => `${callId}#${attempt}`;

/**
 * Replays a tool's ledger through the real planners under a draft policy. Each begin is decided
 * when it was decided, against records the draft would have kept; each simulated attempt ends
 * when and how the real attempt ended (its complete, heartbeats, an eviction). So the policy in
 * force, replayed over the calls it decided, reproduces every decision, and a draft differs only
 * where one of its fields makes a difference. `fingerprint` must be the install's for a ledger the
 * gate wrote (fingerprints derived again are compared with recorded ones); a made-up ledger whose
 * fingerprints are only compared with each other may leave it out.
 */
export function simulatePolicy(entries: readonly LedgerEntry[], draft: ToolPolicy, inForce: ToolPolicy, fingerprint: ArgsFingerprinter = ephemeralFingerprinter()): SimulationResult {
  const replay = new LedgerReplay(draft, inForce, fingerprint);
  for (const entry of entries) replay.apply(entry);
  return { ...tallyVerdicts(replay.verdicts), verdicts: replay.verdicts, assumedOutcomes: replay.assumed };
}

class LedgerReplay {
  readonly verdicts: BeginVerdict[] = [];
  assumed = 0;
  private readonly effective: EffectivePolicy;
  private readonly records = new Map<string, CallRecord>();
  private readonly runs = new Map<string, CallSignature[]>();
  private readonly holders = new Map<string, Holder[]>();
  private readonly outcomes = new Map<string, PastOutcome>();
  private readonly simKeyOfCall = new Map<string, string>();
  private readonly claimed = new Set<string>();
  /** Budgets: what each run has spent under the draft (this tool's executions and their reported costs). */
  private readonly spend = new Map<string, RunSpend>();
  private ids = 0;

  constructor(
    private readonly draft: ToolPolicy,
    private readonly inForce: ToolPolicy,
    private readonly fingerprint: ArgsFingerprinter,
  ) {
    // Shadow mode maps enforce's decision: the simulator answers what enforce would.
    this.effective = { policy: { ...draft, mode: "enforce" }, version: 0 };
  }

  apply(entry: LedgerEntry): void {
    switch (entry.type) {
      case "begin":
        return this.begin(entry);
      case "outcome":
        return this.outcome(entry);
      case "heartbeat":
        return this.heartbeat(entry);
      case "evict":
        return this.evict(entry);
      case "step":
        return void this.steps(entry.runId).push(entry.signature);
    }
  }

  private begin(past: PastBegin): void {
    const verdict = (simulated: SimulatedDecision | null, warned = false, unreplayable: BeginVerdict["unreplayable"] = null) => {
      if (past.counted) {
        // In shadow mode the simulator answers what enforce would: compared with what enforce would have answered then.
        this.verdicts.push({ recorded: past.shadowed ?? past.decision, recordedLoopWarning: past.loopWarned, simulated, simulatedLoopWarning: warned, unreplayable });
      }
    };
    const ranForReal = past.decision === "execute" || past.decision === "verify";
    const freshClaim = ranForReal && past.attempt === 1;
    // A blocked begin never reached its record (it only names it): it needs none of its history.
    const knowsItsRecord = past.callId === null || past.decision === "blocked" || freshClaim || past.bypass === "token" || past.bypass === "allow" || this.claimed.has(past.callId);
    if (ranForReal && past.callId !== null) this.claimed.add(past.callId);
    if (!knowsItsRecord) return verdict(null, false, UNREPLAYABLE.beforeSample);

    const keyed = draftKey(past, this.draft, this.inForce, this.fingerprint);
    if (keyed.kind === "unknown") return verdict(null, false, keyed.reason);
    if (keyed.kind === "rejected") return verdict("rejected");

    const signature: CallSignature = { tool: past.tool, argsFingerprint: keyed.argsFingerprint };
    const steps = this.steps(past.runId);
    const loopSettings = this.draft.loop;
    const loop = loopSettings.enabled ? detectLoop([...steps.slice(-loopHistorySize(loopSettings)), signature], loopSettings) : null;

    const call = this.prepared(past, keyed.key, keyed.argsFingerprint);
    const route = this.route(past, call);
    if (typeof route === "string") return verdict(route, false);

    // The engine's own decision (decide-begin.ts), under the draft as enforced. The ledger keeps no
    // preview tokens: a begin answered preview_required presented none, any other is taken as
    // presenting what it needed.
    const previewToken = (past.shadowed ?? past.decision) !== "preview_required";
    const facts: BeginFacts = {
      kind: kindOf({ effect: this.draft.effect, undo: isCompensationKey(past.key), resent: route.raised, previewToken }),
      policy: this.effective,
      call: { ...call, key: route.key },
      record: route.record,
      generation: route.generation,
      loop,
      runAborted: false,
      approvalRequest: null,
      bypass: past.bypass === null ? null : past.bypass === "token" ? "token" : "ask",
      previewToken,
      previewSpent: false,
      budgetRefused: null,
      latched: past.latched,
      waitUntil: 0,
      now: past.at,
      newCallId: `sim-${++this.ids}`,
      newLeaseToken: (id: string, attempt: number) => `lease-${id}-${attempt}`,
    };
    let step = decideBegin(facts);
    // Budgets, as the store charges them: one past the limit is decided again on the refusal.
    if (step.step === "write" && step.charge) {
      const refused = this.pay(past.runId);
      if (refused) step = decideBegin({ ...facts, budgetRefused: refused });
    }
    if (step.step === "wait") throw new Error("a simulated begin never waits");
    if (step.line.loopStep) steps.push(signature);
    const warned = step.answer.decision !== "blocked" && "loopWarning" in step.answer && step.answer.loopWarning !== undefined;
    if (step.step === "answer") return verdict(step.answer.decision, warned);
    const { write } = step;
    const decision: BeginDecision = step.answer;
    if (write.op === "insert" || write.op === "update") this.records.set(write.record.key, write.record);
    if (write.op === "replay") this.records.set(write.record.key, { ...write.record, replays: write.record.replays + 1 });
    if (past.callId !== null && !alwaysExecutes(this.draft)) this.simKeyOfCall.set(past.callId, write.record.key);
    if (decision.decision === "execute" || decision.decision === "verify") this.attach(past, ranForReal, { key: write.record.key, leaseToken: decision.leaseToken, runId: past.runId });
    verdict(decision.decision, warned);
  }

  /** Charges one execution to the run; the refusal when the draft's budget refuses it (budgetRefusal, as the store applies it). */
  private pay(runId: string): BudgetStatus | null {
    const charge = executionCharge(this.draft.budget, true);
    const spent = this.spend.get(runId) ?? null;
    const refused = budgetRefusal(spent, charge);
    if (refused) return refused;
    const base = spent ?? { calls: 0, costMicros: 0, currency: charge.currency, maxCalls: null, maxCostMicros: null };
    this.spend.set(runId, { ...base, calls: base.calls + charge.calls, costMicros: base.costMicros + charge.costMicros });
    return null;
  }

  /** A cost reported on complete, added when the draft budgets the tool in that currency. */
  private addCost(runId: string, cost: PastOutcome["cost"]): void {
    if (!cost || cost.amount <= 0 || !hasBudget(this.draft) || cost.currency !== this.draft.budget.currency) return;
    const base = this.spend.get(runId) ?? { calls: 0, costMicros: 0, currency: cost.currency, maxCalls: null, maxCostMicros: null };
    this.spend.set(runId, { ...base, costMicros: base.costMicros + toMicros(cost.amount) });
  }

  /** The record a begin plans on (its key's newest generation), after its resend, if any, is answered. */
  private route(past: PastBegin, call: PreparedCall): { key: string; record: CallRecord | null; generation: number; raised: boolean } | SimulatedDecision {
    const base = this.records.get(call.key) ?? null;
    let generation = base && base.generation > 1 ? base.generation : 1;
    let raised = false;
    const current = () => (generation === 1 ? base : (this.records.get(generationKey(call.key, generation)) ?? null));
    if (past.bypass !== null && !alwaysExecutes(this.draft) && isCachedOutcome(current(), this.draft, past.at)) {
      if (this.draft.bypass === "never") return "rejected";
      if (past.bypass !== "token" && this.draft.bypass === "approval") return "approval_required";
      generation = base!.generation + 1;
      raised = true;
      this.records.set(call.key, {
        ...base!,
        generation,
        version: base!.version + 1,
        updatedAt: past.at,
        expiresAt: Math.max(base!.expiresAt, past.at + this.draft.ttlSeconds * 1000),
      });
    }
    return { key: generationKey(call.key, generation), record: current(), generation, raised };
  }

  /**
   * A simulated attempt ends when and how a real one did: its own, when the call ran; otherwise
   * the attempt it was deduplicated against (already ended, or ending later), which is the
   * nearest thing the ledger knows about how it would have gone.
   */
  private attach(past: PastBegin, ranForReal: boolean, holder: Holder): void {
    if (alwaysExecutes(this.draft) && ranForReal) return;
    if (!ranForReal && past.counted) this.assumed++;
    if (past.callId === null) return this.end(holder, { type: "outcome", at: past.at, callId: "", attempt: 0, state: "succeeded", resolved: false, cost: null });
    const id = attemptId(past.callId, past.attempt);
    const ended = this.outcomes.get(id);
    if (!ranForReal && ended) return this.end(holder, { ...ended, at: past.at });
    this.holders.set(id, [...(this.holders.get(id) ?? []), holder]);
  }

  private outcome(entry: PastOutcome): void {
    const id = attemptId(entry.callId, entry.attempt);
    this.outcomes.set(id, entry);
    for (const holder of this.holders.get(id) ?? []) this.end(holder, entry);
    this.holders.delete(id);
    if (entry.resolved) this.resolveReleased(entry);
  }

  /**
   * An operator may resolve a call whose lease was already evicted (released): the engine then
   * holds the resolved outcome and replays it, so the simulated record must hold it too.
   */
  private resolveReleased(entry: PastOutcome): void {
    const key = this.simKeyOfCall.get(entry.callId);
    const record = key === undefined ? undefined : this.records.get(key);
    if (!record || record.state !== "released") return;
    this.records.set(record.key, { ...record, state: entry.state, completedAt: entry.at, leaseExpiresAt: null, updatedAt: entry.at, expiresAt: entry.at + this.draft.ttlSeconds * 1000, version: record.version + 1 });
  }

  private end(holder: Holder, entry: PastOutcome): void {
    const record = this.records.get(holder.key);
    if (!record || record.leaseToken !== holder.leaseToken || record.state !== "in_progress") return;
    if (entry.resolved) {
      // What an operator found downstream is final, whatever the policy says about failures.
      const resolved: CallRecord = { ...record, state: entry.state, completedAt: entry.at, leaseExpiresAt: null, updatedAt: entry.at, expiresAt: entry.at + this.draft.ttlSeconds * 1000, version: record.version + 1 };
      return void this.records.set(holder.key, resolved);
    }
    const plan = planComplete(record, holder.leaseToken, outcomeLike(entry.state), this.effective, entry.at);
    if (plan.op === "update") {
      this.records.set(holder.key, plan.record);
      this.addCost(holder.runId, entry.cost);
    }
  }

  private heartbeat(entry: PastHeartbeat): void {
    for (const holder of this.holders.get(attemptId(entry.callId, entry.attempt)) ?? []) {
      const record = this.records.get(holder.key);
      if (!record) continue;
      const plan = planHeartbeat(record, holder.leaseToken, entry.extendSeconds ?? this.draft.leaseSeconds, entry.at);
      if (plan.op === "update") this.records.set(holder.key, plan.record);
    }
  }

  private evict(entry: PastEviction): void {
    const key = this.simKeyOfCall.get(entry.callId);
    const record = key === undefined ? undefined : this.records.get(key);
    if (!record || leaseIsLive(record, entry.at)) return;
    this.records.set(record.key, { ...record, state: "released", result: null, error: null, leaseExpiresAt: null, updatedAt: entry.at, version: record.version + 1 });
  }

  private steps(runId: string): CallSignature[] {
    let steps = this.runs.get(runId);
    if (!steps) this.runs.set(runId, (steps = []));
    return steps;
  }

  private prepared(past: PastBegin, key: string, argsFingerprint: string): PreparedCall {
    return {
      projectId: past.projectId,
      tool: past.tool,
      runId: past.runId,
      stepId: past.identity.stepId ?? null,
      scope: past.identity.scope ?? null,
      toolCallId: past.toolCallId,
      agentId: past.agentId,
      args: past.identity.args,
      key,
      legacyKey: null,
      strategy: this.draft.keyStrategy,
      argsFingerprint,
      // The ledger's fingerprints are compared only with each other here.
      legacyArgsFingerprint: argsFingerprint,
      argsText: null,
    };
  }
}

function outcomeLike(state: PastOutcome["state"]): CompleteOutcome {
  if (state === "failed") return { outcome: "failed", error: { message: "failed", retryable: false } };
  if (state === "released") return { outcome: "failed", error: { message: "failed", retryable: true } };
  return { outcome: "succeeded" };
}
