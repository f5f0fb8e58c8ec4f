import { type CompensationPlan, type RunState, isCompensationKey, mayBeginCompensation, planCompensation } from "../../core/plan-compensation";
import type { EffectivePolicy } from "../../core/policy";
import type { BeginDecision, CallRecord } from "../../core/record";
import type { OperatorStore } from "../../store/ports/operator-store";
import type { RunAbortRepository, RunAbortRow } from "../../store/prisma/run-abort-repository";
import { instruments } from "../../telemetry/instruments";
import { withSpan } from "../../telemetry/spans";
import { AppError } from "../app-error";
import { assertVisibleIds } from "../gate/visible-ids";
import type { GateService } from "../gate/gate-service";
import { newId } from "../ids";
import { type Actor, auditEntry } from "../operators/operator-audit";
import { CompensationSteps } from "./compensation-steps";
import type { KnownRuns } from "./known-runs";

export interface RunSaga {
  runId: string;
  abort: RunAbortRow | null;
  plan: CompensationPlan;
}

/** Who aborted: the run's own agent, a tool's `onPermanentFailure: compensate`, or an operator. */
export type AbortSource = { by: "agent"; actor: Actor } | { by: "policy"; callId: string } | { by: "operator"; actor: Actor };

/**
 * Sagas: aborts a run and hands its compensation plan to runners (the SDK). The plan is derived
 * from the run's records every time (lib/core/plan-compensation.ts); each undo is an ordinary gated
 * call under `<key>:compensate`, so the gate's unique key is what keeps any step from running twice.
 */
export class SagaService {
  constructor(
    private readonly runs: RunAbortRepository,
    private readonly known: KnownRuns,
    private readonly gate: GateService,
    private readonly operatorStore: () => OperatorStore,
    private readonly clock: () => number = Date.now,
  ) {
    this.steps = new CompensationSteps(gate, operatorStore, clock);
  }

  private readonly steps: CompensationSteps;

  /** The run's saga; 404 for a run id no call of this project used. */
  async get(projectId: string, runId: string): Promise<RunSaga> {
    await this.known.require(projectId, runId);
    return this.read(projectId, runId);
  }

  private async read(projectId: string, runId: string): Promise<RunSaga> {
    const [abort, records] = await Promise.all([this.runs.find(projectId, runId), this.runs.recordsOfRun(projectId, runId)]);
    return { runId, abort, plan: planCompensation(abort !== null, records) };
  }

  /**
   * Each run's saga state (runs list): `none` for a run none of whose steps registered an undo and
   * that was not aborted (it has no saga, issue #38); `running` for one that has undos to run if
   * aborted; aborted runs are planned from their records.
   */
  async statesOf(projectId: string, runIds: string[]): Promise<Map<string, RunState | "none">> {
    const [aborts, records] = await Promise.all([this.runs.findMany(projectId, runIds), this.runs.recordsOfRuns(projectId, runIds)]);
    const states = new Map<string, RunState | "none">();
    for (const runId of runIds) {
      const plan = planCompensation(false, records.get(runId) ?? []);
      states.set(runId, plan.steps.length > 0 ? "running" : "none");
    }
    for (const abort of aborts) states.set(abort.runId, planCompensation(true, records.get(abort.runId) ?? []).state);
    return states;
  }

  /** Aborted runs whose plan is not done: a compensation failed permanently, or one is still to run. Newest abort first. */
  async needingAttention(projectId: string, limit = 100): Promise<RunSaga[]> {
    const aborts = await this.runs.recent(projectId, limit);
    const records = await this.runs.recordsOfRuns(projectId, aborts.map((a) => a.runId));
    return aborts
      .map((abort) => ({ runId: abort.runId, abort, plan: planCompensation(true, records.get(abort.runId) ?? []) }))
      .filter((saga) => saga.plan.state === "compensation_failed" || saga.plan.state === "compensating");
  }

  /**
   * Idempotent: a second abort (any source) answers the run as the first one left it. A run id no
   * call of this project used is 404 and records nothing (a policy's abort comes from one of its calls).
   */
  async abort(projectId: string, runId: string, reason: string, source: AbortSource): Promise<RunSaga> {
    // The rule every begin's run id follows: no run is aborted that no begin could have started.
    assertVisibleIds({ tool: "idemgate.saga", runId });
    return withSpan("idemgate.saga.abort", { "idemgate.run_id": runId, "idemgate.abort.by": source.by }, async () => {
      if (source.by !== "policy") await this.known.require(projectId, runId);
      const now = this.clock();
      const abortedBy = source.by === "operator" ? `operator:${source.actor.label ?? source.actor.id}` : source.by;
      const row: RunAbortRow = { projectId, runId, reason, abortedBy, abortedAt: now };
      const event = {
        id: newId("evt", now),
        projectId,
        callId: source.by === "policy" ? source.callId : null,
        key: `run:${runId}`,
        tool: "idemgate.saga",
        runId,
        agentId: null,
        toolCallId: null,
        type: "saga" as const,
        decision: "aborted",
        attempt: 0,
        argsMismatch: false,
        latencyUs: 0,
        at: now,
        policyVersion: 0,
        detail: JSON.stringify({ reason, by: abortedBy }),
        argsFingerprint: null,
        loopStep: false,
      };
      const audit = source.by === "policy" ? null : auditEntry(source.actor, projectId, "run.aborted", { type: "run", id: runId }, { reason }, now);
      if (await this.runs.insertIfAbsent(row, event, audit)) instruments().sagaAborts.add(1, { by: source.by });
      return this.read(projectId, runId);
    });
  }

  /** Begins one step's undo as a gated call; only in plan order, and only once the run is aborted. */
  async beginCompensation(projectId: string, runId: string, callId: string, waitMs?: number): Promise<BeginDecision> {
    const { plan } = await this.get(projectId, runId);
    const allowed = mayBeginCompensation(plan, callId);
    if (!allowed.ok) throw new AppError("invalid_state", allowed.reason);
    const { step } = allowed;
    const original = plan.steps.find((s) => s.callId === callId)!;
    const attributes = { "idemgate.run_id": runId, "idemgate.call_id": callId, "gen_ai.tool.name": step.compensation.tool };
    return withSpan("idemgate.saga.compensate", attributes, () => this.gate.begin(projectId, {
      tool: step.compensation.tool,
      runId,
      stepId: original.stepId === null ? null : `${original.stepId}:compensate`,
      scope: null,
      toolCallId: null,
      agentId: null,
      args: step.compensation.args,
      derivedKey: step.compensationKey,
      waitMs,
    }));
  }

  /** Called after every stored complete (and its retries): counts undos by outcome; a policy may abort the run. */
  async afterComplete(record: CallRecord, policy: EffectivePolicy, repeated: boolean): Promise<void> {
    if (isCompensationKey(record.key)) {
      if (!repeated) instruments().compensations.add(1, { tool: record.tool, outcome: record.state });
      return;
    }
    if (record.state === "failed" && policy.policy.onPermanentFailure === "compensate") {
      const message = record.error ? (JSON.parse(record.error) as { message?: string }).message : undefined;
      await this.abort(record.projectId, record.runId, `${record.tool} failed permanently${message ? `: ${message}` : ""}`, { by: "policy", callId: record.id });
    }
  }

  /** An operator lets a failed undo run again: its record is released, the next begin of it is one more attempt (audited). */
  async retry(projectId: string, runId: string, callId: string, reason: string, actor: Actor): Promise<RunSaga> {
    await this.steps.retry(projectId, runId, await this.stepOf(projectId, runId, callId), reason, actor);
    return this.read(projectId, runId);
  }

  /** An operator records by hand that a step not yet done needs no (more) undoing: audited, and the plan goes on. */
  async resolve(projectId: string, runId: string, callId: string, note: string, actor: Actor): Promise<RunSaga> {
    const step = await this.stepOf(projectId, runId, callId);
    await this.steps.resolve(projectId, runId, step, note, actor);
    instruments().compensations.add(1, { tool: step.compensation.tool, outcome: "resolved" });
    return this.read(projectId, runId);
  }

  private async stepOf(projectId: string, runId: string, callId: string) {
    const { plan } = await this.get(projectId, runId);
    const step = plan.steps.find((s) => s.callId === callId);
    if (!step) throw new AppError("not_found", `call ${callId} has no compensation in run ${runId}`);
    if (plan.state === "running") throw new AppError("invalid_state", `run ${runId} is not aborted: nothing is being undone`);
    return step;
  }
}
