import { type CompensationStep, type ResolvedByHand, type StepAction, stepActions } from "../../core/plan-compensation";
import type { CallRecord } from "../../core/record";
import type { OperatorStore } from "../../store/ports/operator-store";
import { AppError } from "../app-error";
import { recordEvent } from "../gate/gate-events";
import type { GateService } from "../gate/gate-service";
import { newId } from "../ids";
import { type Actor, auditEntry } from "../operators/operator-audit";

/**
 * An operator's actions on one step of an aborted run's compensation plan (plan-compensation.ts's
 * `stepActions` says which apply): retry a failed undo, or resolve by hand any step that is not done.
 * Each is one conditional write of the undo's record with its ledger event and its audit entry.
 */
export class CompensationSteps {
  constructor(
    private readonly gate: GateService,
    private readonly operatorStore: () => OperatorStore,
    private readonly clock: () => number,
  ) {}

  /**
   * A failed undo runs again: its record is released, the state the engine re-executes from, so the
   * next begin of the undo (whoever makes it, whatever was replayed before) is one more attempt.
   */
  async retry(projectId: string, runId: string, step: CompensationStep, reason: string, actor: Actor): Promise<void> {
    allowed(step, "retry");
    const undo = await this.gate.getRecordOrThrow(projectId, step.compensationCallId!);
    if (undo.state !== "failed") throw new AppError("invalid_state", `the compensation of call ${step.callId} is no longer failed: look at it again`);
    const now = this.clock();
    const released: CallRecord = { ...undo, state: "released", result: null, error: null, leaseExpiresAt: null, updatedAt: now, version: undo.version + 1 };
    // The ledger line is the record's eviction (what the engine sees); the audit says what the operator did.
    const event = recordEvent(released, { type: "operator", decision: "evicted", startedAt: performance.now(), at: now, policyVersion: undo.policyVersion, detail: { by: actor.label, reason, retry: { runId, callId: step.callId } } });
    const detail = { runId, callId: step.callId, compensationCallId: undo.id, tool: undo.tool, attempts: undo.attempt, previousError: undo.error, reason };
    const audit = auditEntry(actor, projectId, "compensation.retried", { type: "call", id: undo.id }, detail, now);
    if (!(await this.operatorStore().updateRecordByOperator(released, undo.version, event, audit))) {
      throw new AppError("version_conflict", `compensation ${undo.id} changed meanwhile: look at it again, then retry`);
    }
  }

  /**
   * The operator records that the step needs no (more) undoing. An undo never begun gets its record
   * written resolved (a runner that begins it afterwards is replayed the resolution); a begun one,
   * failed or still running, is resolved in place (a runner still holding it loses its lease).
   */
  async resolve(projectId: string, runId: string, step: CompensationStep, note: string, actor: Actor): Promise<void> {
    allowed(step, "resolve");
    const now = this.clock();
    const result = JSON.stringify({ resolvedByHand: { by: actor.label ?? actor.id ?? "operator", note } } satisfies ResolvedByHand);
    const undo = step.compensationCallId === null ? null : await this.gate.getRecordOrThrow(projectId, step.compensationCallId);
    const resolved = undo
      ? { ...undo, state: "succeeded" as const, result, error: null, leaseExpiresAt: null, completedAt: now, updatedAt: now, version: undo.version + 1 }
      : await this.neverBegun(projectId, runId, step, result, now);
    const event = recordEvent(resolved, {
      type: "operator",
      decision: "resolved_by_hand",
      startedAt: performance.now(),
      at: now,
      policyVersion: resolved.policyVersion,
      detail: { by: actor.label, note },
    });
    const detail = { runId, callId: step.callId, compensationCallId: resolved.id, tool: resolved.tool, previousStatus: step.status, previousError: undo?.error ?? null, note };
    const audit = auditEntry(actor, projectId, "compensation.resolved", { type: "call", id: resolved.id }, detail, now);
    const store = this.operatorStore();
    const written = undo ? await store.updateRecordByOperator(resolved, undo.version, event, audit) : await store.insertRecordByOperator(resolved, event, audit);
    if (!written) throw new AppError("version_conflict", `the compensation of call ${step.callId} changed meanwhile: look at it again, then resolve`);
  }

  /** The undo's record as its first begin would have keyed it, written resolved, with no attempt made. */
  private async neverBegun(projectId: string, runId: string, step: CompensationStep, result: string, now: number): Promise<CallRecord> {
    const stepId = step.stepId === null ? null : `${step.stepId}:compensate`;
    const identity = { tool: step.compensation.tool, runId, stepId, scope: null, toolCallId: null, agentId: null };
    const { policy, call } = await this.gate.prepareFor(projectId, { ...identity, args: step.compensation.args, derivedKey: step.compensationKey });
    return {
      id: newId("call", now),
      projectId,
      key: call.key,
      ...identity,
      scope: call.scope,
      strategy: call.strategy,
      argsFingerprint: call.argsFingerprint,
      args: call.argsText,
      state: "succeeded",
      attempt: 0,
      leaseToken: null,
      leaseExpiresAt: null,
      result,
      error: null,
      replays: 0,
      firstSeenAt: now,
      completedAt: now,
      expiresAt: now + policy.policy.ttlSeconds * 1000,
      updatedAt: now,
      version: 0,
      policyVersion: policy.version,
      generation: 1,
      compensation: null,
    };
  }
}

function allowed(step: CompensationStep, action: StepAction): void {
  if (!stepActions(step).includes(action)) {
    const can = action === "retry" ? "only a failed undo is retried" : "only a step not yet done is resolved";
    throw new AppError("invalid_state", `the compensation of call ${step.callId} is ${step.status}: ${can}`);
  }
}
