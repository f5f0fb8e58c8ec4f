import { type CallKind, applies } from "./begin-guards";
import { type BudgetCharge, type BudgetStatus, describeBudget, executionCharge } from "./budget";
import { type LoopMatch, isLoopStep } from "./loop-detector";
import { type BeginPlan, planBegin } from "./plan-begin";
import { type EffectivePolicy, hasBudget } from "./policy";
import type { PreparedCall } from "./prepare-call";
import type { BeginDecision, CallRecord, LoopWarning } from "./record";
import { shadowDetail, shadowName } from "./shadow";

/**
 * Everything a begin read, and what this begin already did, as the decision takes it. No I/O, no
 * clock, no ids minted here: the service reads, passes them in, and carries out the answer.
 */
export interface BeginFacts {
  kind: CallKind;
  policy: EffectivePolicy;
  /** The call to plan: its key is the key's newest generation's. */
  call: PreparedCall;
  /** The record under `call.key`, or null. */
  record: CallRecord | null;
  /** The key generation a claimed record belongs to (resend routing); default 1. */
  generation?: number;
  /** The loop the run's history plus this call make, if any. */
  loop: LoopMatch | null;
  /** The run was aborted (sagas): compensating, or done compensating. */
  runAborted: boolean;
  /** A bypass ask answered by a resend request still waiting for a human. */
  approvalRequest: string | null;
  /** The begin carried a resend's token, or asked for one: kept on its event for the policy simulator. */
  bypass: "token" | "ask" | null;
  previewToken: boolean;
  /** This begin already spent its preview token (a write it carried lost a race). */
  previewSpent: boolean;
  /** The charged write was refused by the run's counter: the spend it found. */
  budgetRefused: BudgetStatus | null;
  /** The begin already waited on a live attempt: its outcome is a concurrent duplicate's, not a new step. */
  latched: boolean;
  /** Until when the begin may wait on a live attempt (its `waitMs`); `now` or earlier: no wait. */
  waitUntil: number;
  now: number;
  /** The id a new record gets (minted by the caller, used at most once). */
  newCallId: string;
  newLeaseToken: (callId: string, attempt: number) => string;
}

/** The begin's ledger line, as decided: the service adds what only it knows (ids, latency, policy version). */
export interface BeginLine {
  /** The record it is about: the key's record when there is one. */
  record: CallRecord | null;
  decision: BeginDecision["decision"];
  loopStep: boolean;
  argsMismatch: boolean;
  detail: Record<string, unknown> | null;
  shadowDecision?: string;
}

export type RecordWrite =
  | { op: "insert"; record: CallRecord }
  | { op: "update"; record: CallRecord; expectedVersion: number }
  /** Count one replay of the record at its version (the answer's `replays` is what the store counted). */
  | { op: "replay"; record: CallRecord };

/**
 * What the service does with a begin:
 * - `wait`: latch onto the live attempt, then read and decide again;
 * - `answer`: no record changes; append the line (a decision-only event) and answer;
 * - `write`: the conditional write (with its line, and the charge to the run's budget): when it does
 *   not apply, read and decide again; when the charge is refused, decide again with `budgetRefused`.
 */
export type BeginStep =
  | { step: "wait"; untilMs: number }
  | { step: "answer"; answer: BeginDecision; line: BeginLine }
  | {
      step: "write";
      write: RecordWrite;
      answer: BeginDecision;
      line: BeginLine;
      charge: BudgetCharge | null;
      /** Spend the presented preview token before the write. */
      redeemPreview: boolean;
      /** The answer hands out a lease: the service keeps the record for its complete. */
      leased: boolean;
    };

/**
 * The begin, decided once. Clauses, in order (GUARD_ORDER; each asks GUARD_TABLE whether it applies
 * to the call's kind):
 * 0. a bypass ask waiting for a human answers `approval_required`;
 * 1. run_aborted: an aborted run refuses new forward work (`refused`, reason `run_aborted`);
 * 2. dedupe: the key's record decides (planBegin), a read always runs under a row of its own;
 * 3. loop: a begin that would be a step of the agent's reasoning and completes a cycle is blocked
 *    (`warn`: flagged) — a concurrent duplicate, a poll of an accepted operation, a transport retry
 *    are no steps, so they are neither blocked nor flagged; a resend is only flagged;
 * 4. a live attempt is waited on while the begin may wait;
 * 5. preview: a first execution spends a preview's token, or asks for one;
 * 6. budget: a new execution is charged, and refused once the run's counter says so.
 * Shadow mode then maps the answer (shadowed): decided exactly as enforce, recorded as `would_…`.
 */
export function decideBegin(facts: BeginFacts): BeginStep {
  return facts.policy.policy.mode === "shadow" ? shadowed(decideEnforced(facts), facts) : decideEnforced(facts);
}

function decideEnforced(facts: BeginFacts): BeginStep {
  const { kind, policy, call, record, now } = facts;
  const p = policy.policy;
  const found = facts.loop && { reason: "loop_detected" as const, pattern: facts.loop.pattern.map((step) => step.tool), repeats: facts.loop.repeats };

  if (facts.approvalRequest !== null) {
    return answer(facts, { decision: "approval_required", requestId: facts.approvalRequest }, record, false);
  }

  if (applies("run_aborted", kind) && facts.runAborted) {
    const decision: BeginDecision = {
      decision: "refused",
      reason: "run_aborted",
      key: call.key,
      message: `stop: run ${call.runId} was aborted and its steps are being undone. Do not start new steps; report to the user.`,
    };
    return answer(facts, decision, record, false, { reason: "run_aborted" });
  }

  const plan = planBegin(applies("dedupe", kind) ? record : null, call, {
    now,
    policy,
    newCallId: () => facts.newCallId,
    newLeaseToken: facts.newLeaseToken,
    generation: facts.generation,
  });
  // The same tool-call id sent again (an HTTP client's retry of one Idempotency-Key, an SDK's
  // resend of a lost answer) is a transport retry, not the model deciding again.
  const resent = (plan.op === "replay" || plan.op === "none") && plan.record.toolCallId !== null && plan.record.toolCallId === call.toolCallId;
  const step = loopStep(kind, plan.decision, facts.latched || resent);

  let warning: LoopWarning | undefined;
  if (found && kind !== "read" && kind !== "undo") {
    if (step && applies("loop", kind) && p.loop.action === "block") {
      const blocked: BeginDecision = { decision: "blocked", ...found };
      return answer(facts, blocked, record, true, { loop: found });
    }
    // Flagged: a step of the agent's reasoning (under `warn`), or a resend a human asked for inside
    // a loop. A duplicate that is no step (in progress, waited on, a transport retry, a poll) is not
    // the agent deciding again, and a flag on it would depend on what arrived first, so the ledger
    // replayed in order could not give it again.
    if (step || kind === "resend") warning = found;
  }

  if (plan.decision.decision === "in_progress" && now < facts.waitUntil && p.mode !== "shadow") {
    return { step: "wait", untilMs: facts.waitUntil };
  }

  const first = plan.decision.decision === "execute";
  if (first && applies("preview", kind) && p.preview !== "none" && !facts.previewSpent && !facts.previewToken) {
    const decision: BeginDecision = { decision: "preview_required", key: call.key, mode: p.preview, argsFingerprint: call.argsFingerprint };
    return answer(facts, decision, record, false);
  }
  const redeemPreview = first && applies("preview", kind) && p.preview !== "none" && !facts.previewSpent && facts.previewToken;

  const charge = applies("budget", kind) && hasBudget(p) && chargesAnExecution(plan) ? executionCharge(p.budget, true) : null;
  if (charge && facts.budgetRefused) {
    // The run is not repeating itself: a refused step is no loop step.
    const written = plan.op === "update" ? plan.record : null;
    return answer(facts, budgetBlocked(facts.budgetRefused), written, false, { reason: "budget_exceeded", budget: facts.budgetRefused });
  }

  const flagged = warning ? ({ ...plan.decision, loopWarning: warning } as BeginDecision) : plan.decision;
  const argsMismatch = plan.op === "replay" ? plan.decision.argsMismatch : plan.op === "none" ? plan.argsMismatch : false;
  // Same key, other args: keep what this call sent (redacted like the record's), so an operator
  // can set both argument sets side by side. Only mismatches pay for it.
  const mismatchDetail = argsMismatch && call.argsText !== null ? { args: JSON.parse(call.argsText) as unknown } : null;
  const line = lineOf(facts, plan.decision.decision, plan.record, step, warning ? { loopWarning: warning, ...mismatchDetail } : mismatchDetail, argsMismatch);
  if (plan.op === "none") return { step: "answer", answer: flagged, line };
  const write: RecordWrite =
    plan.op === "update" ? { op: "update", record: plan.record, expectedVersion: plan.expectedVersion } : { op: plan.op, record: plan.record };
  const leased = plan.decision.decision === "execute" || plan.decision.decision === "verify";
  return { step: "write", write, answer: flagged, line, charge, redeemPreview, leased };
}

/**
 * Budgets: a new execution is charged to its run; a retry of the same record after a retryable
 * failure or a lost lease is the same call, counted once.
 */
function chargesAnExecution(plan: BeginPlan): boolean {
  if (plan.decision.decision !== "execute" && plan.decision.decision !== "verify") return false;
  return plan.op === "insert" || (plan.op === "update" && plan.record.attempt === 1);
}

/**
 * Which begins are steps of the agent's reasoning, for the loop detector: undos, reads and
 * approved resends never are; a poll of an accepted operation is the agent asking after its job,
 * not deciding again.
 */
function loopStep(kind: CallKind, decision: BeginDecision, latched: boolean): boolean {
  if (!applies("loop", kind)) return false;
  if (decision.decision === "replay" && decision.status === "accepted") return false;
  return isLoopStep(decision, latched);
}

function answer(facts: BeginFacts, decision: BeginDecision, record: CallRecord | null, step: boolean, detail?: Record<string, unknown>): BeginStep {
  return { step: "answer", answer: decision, line: lineOf(facts, decision.decision, record, step, detail ?? null, false) };
}

function lineOf(facts: BeginFacts, decision: BeginDecision["decision"], record: CallRecord | null, loopStep: boolean, detail: Record<string, unknown> | null, argsMismatch: boolean): BeginLine {
  // A begin blocked before it had a record keeps the step the agent named: the run page lists it as
  // that step (its key is a digest, and there is no record to read it from).
  const named = decision === "blocked" && record === null && facts.call.stepId !== null ? { ...detail, stepId: facts.call.stepId } : detail;
  return { record, decision, loopStep, argsMismatch, detail: facts.bypass === null ? named : { ...named, bypass: facts.bypass } };
}

/**
 * Shadow mode, as a mapping of enforce's step: an execution enforce would hand out is handed out
 * the same (its record is written as enforce writes it, so the next begin decides on it exactly as
 * enforce would, concurrent ones included), marked `would_execute`; a preview token is not spent.
 * Any other answer is recorded as `would_…` on a record of its own (as a tool that never dedupes),
 * so the agent runs the tool as it did before and its complete is recorded; the line keeps enforce's
 * loop step, so loops count as under enforce.
 */
export function shadowed(step: BeginStep, facts: BeginFacts): BeginStep {
  if (step.step === "wait") return step;
  if (step.step === "write" && step.answer.decision === "execute") {
    return {
      ...step,
      redeemPreview: false,
      answer: { ...step.answer, shadowDecision: "would_execute" },
      line: { ...step.line, shadowDecision: "would_execute" },
    };
  }
  const would = step.answer;
  const policy: EffectivePolicy = { ...facts.policy, policy: { ...facts.policy.policy, onDuplicate: "execute" } };
  const plan = planBegin(null, facts.call, { now: facts.now, policy, newCallId: () => facts.newCallId, newLeaseToken: facts.newLeaseToken });
  if (plan.decision.decision !== "execute") throw new Error("an unkeyed plan always executes");
  const warning = "loopWarning" in would ? would.loopWarning : undefined;
  const shadowDecision = shadowName(would);
  const detail = { ...shadowDetail(would), ...(warning ? { loopWarning: warning } : {}), ...(facts.bypass === null ? {} : { bypass: facts.bypass }) };
  return {
    step: "write",
    write: { op: "insert", record: plan.record },
    answer: { ...plan.decision, shadowDecision, ...(warning ? { loopWarning: warning } : {}) },
    line: { record: plan.record, decision: "execute", loopStep: step.line.loopStep, argsMismatch: false, detail, shadowDecision },
    charge: null,
    redeemPreview: false,
    leased: true,
  };
}

/** The answer to a begin past its run's budget: blocked, with the spend in words a model acts on. */
function budgetBlocked(status: BudgetStatus): BeginDecision {
  return { decision: "blocked", reason: "budget_exceeded", pattern: [], repeats: 0, message: describeBudget(status), budget: status };
}
