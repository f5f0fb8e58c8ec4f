import { KeyDerivationError } from "../core/keys";
import { type BeginPlan, planBegin, alwaysExecutes } from "../core/plan-begin";
import { type CompleteOutcome, planComplete, planHeartbeat } from "../core/plan-complete";
import { type BeginCall, type PreparedCall, prepareCall } from "../core/prepare-call";
import type { BeginDecision, CallRecord } from "../core/record";
import type { EffectivePolicy } from "../core/policy";
import type { EventType, GateEvent, GateStore } from "../store/types";
import { AppError } from "./app-error";
import { newId, newSecret } from "./ids";
import { OutcomeWaiters } from "./outcome-waiters";
import type { PolicySource } from "./policy-source";

export interface BeginInput extends Omit<BeginCall, "projectId"> {
  waitMs?: number;
}

/** How many times a write may lose a compare-and-set race before the caller is told to retry. */
const MAX_WRITE_RACES = 8;
const LATCH_POLL_MIN_MS = 10;
const LATCH_POLL_MAX_MS = 100;

export interface GateServiceOptions {
  clock?: () => number;
}

/**
 * Composes the pure engine with the store: read the record, plan, apply the plan conditionally,
 * and re-plan when another writer got there first. Knows nothing of HTTP.
 */
export class GateService {
  private readonly waiters = new OutcomeWaiters();
  private readonly clock: () => number;

  constructor(
    readonly store: GateStore,
    private readonly policies: PolicySource,
    options: GateServiceOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
  }

  async begin(projectId: string, input: BeginInput): Promise<BeginDecision> {
    const startedAt = performance.now();
    const policy = await this.policies.forTool(projectId, input.tool);
    const call = this.prepare({ ...input, projectId }, policy);
    const deadline = this.clock() + (input.waitMs ?? 0);
    let pollMs = LATCH_POLL_MIN_MS;

    for (let races = 0; races < MAX_WRITE_RACES; ) {
      const existing = alwaysExecutes(policy.policy) ? null : await this.store.findRecordByKey(projectId, call.key);
      const now = this.clock();
      const plan = planBegin(existing, call, {
        now,
        policy,
        newCallId: () => newId("call", now),
        newLeaseToken: () => newSecret(),
      });

      if (plan.decision.decision === "in_progress" && now < deadline) {
        await this.waiters.wait(waitKey(projectId, call.key), Math.min(pollMs, deadline - now));
        pollMs = Math.min(pollMs * 2, LATCH_POLL_MAX_MS);
        continue;
      }

      const applied = await this.apply(plan, call, startedAt);
      if (applied) return applied;
      races++;
    }
    throw new AppError("contention", "the key is changing too fast to decide; retry the same request", {
      retryAfterSeconds: 1,
    });
  }

  private prepare(call: BeginCall, policy: EffectivePolicy): PreparedCall {
    try {
      return prepareCall(call, policy.policy);
    } catch (error) {
      if (error instanceof KeyDerivationError) {
        throw new AppError("invalid_input", error.message, {
          issues: [{ path: [error.field], message: error.message, code: "missing_for_key_strategy" }],
        });
      }
      throw error;
    }
  }

  /** Null when a concurrent writer changed the record first: plan again from a fresh read. */
  private async apply(plan: BeginPlan, call: PreparedCall, startedAt: number): Promise<BeginDecision | null> {
    const event = (record: CallRecord, argsMismatch: boolean): GateEvent =>
      this.event("begin", record, plan.decision.decision, startedAt, {
        agentId: call.agentId,
        toolCallId: call.toolCallId,
        argsMismatch,
      });
    switch (plan.op) {
      case "insert":
        return (await this.store.insertRecord(plan.record, event(plan.record, false))) ? plan.decision : null;
      case "update":
        return (await this.store.updateRecord(plan.record, plan.expectedVersion, event(plan.record, false)))
          ? plan.decision
          : null;
      case "replay": {
        const replays = await this.store.recordReplay(
          plan.record,
          plan.record.version,
          event(plan.record, plan.decision.argsMismatch),
        );
        return replays === null ? null : { ...plan.decision, replays };
      }
      case "none":
        await this.store.appendEvent(event(plan.record, plan.argsMismatch));
        return plan.decision;
    }
  }

  async complete(projectId: string, callId: string, leaseToken: string, outcome: CompleteOutcome): Promise<CallRecord> {
    const startedAt = performance.now();
    for (let races = 0; races < MAX_WRITE_RACES; races++) {
      const record = await this.getRecordOrThrow(projectId, callId);
      const policy = await this.policies.forTool(projectId, record.tool);
      const plan = planComplete(record, leaseToken, outcome, policy, this.clock());
      if (plan.op === "already") return plan.record;
      if (plan.op === "lease_lost") {
        await this.store.appendEvent(this.event("lease_lost", record, `complete_${outcome.outcome}`, startedAt));
        throw leaseLost(record);
      }
      const decision = plan.record.state;
      if (await this.store.updateRecord(plan.record, plan.expectedVersion, this.event("complete", plan.record, decision, startedAt))) {
        this.waiters.notify(waitKey(projectId, record.key));
        return plan.record;
      }
    }
    throw new AppError("contention", "the call changed while completing; retry the same request", { retryAfterSeconds: 1 });
  }

  async heartbeat(projectId: string, callId: string, leaseToken: string, extendSeconds?: number): Promise<CallRecord> {
    const startedAt = performance.now();
    for (let races = 0; races < MAX_WRITE_RACES; races++) {
      const record = await this.getRecordOrThrow(projectId, callId);
      const policy = await this.policies.forTool(projectId, record.tool);
      const plan = planHeartbeat(record, leaseToken, extendSeconds ?? policy.policy.leaseSeconds, this.clock());
      if (plan.op === "lease_lost") {
        await this.store.appendEvent(this.event("lease_lost", record, "heartbeat", startedAt));
        throw leaseLost(record);
      }
      if (await this.store.updateRecord(plan.record, plan.expectedVersion, this.event("heartbeat", plan.record, "extended", startedAt))) {
        return plan.record;
      }
    }
    throw new AppError("contention", "the call changed during the heartbeat; retry", { retryAfterSeconds: 1 });
  }

  async getRecordOrThrow(projectId: string, callId: string): Promise<CallRecord> {
    const record = await this.store.findRecordById(projectId, callId);
    // Another project's call is "not found", never "forbidden": ids must not confirm existence.
    if (!record) throw new AppError("not_found", `no call ${callId} in this project`);
    return record;
  }

  private event(
    type: EventType,
    record: CallRecord,
    decision: string,
    startedAt: number,
    extra: { agentId?: string | null; toolCallId?: string | null; argsMismatch?: boolean } = {},
  ): GateEvent {
    const at = this.clock();
    return {
      id: newId("evt", at),
      projectId: record.projectId,
      callId: record.id,
      key: record.key,
      tool: record.tool,
      runId: record.runId,
      agentId: extra.agentId !== undefined ? extra.agentId : record.agentId,
      toolCallId: extra.toolCallId !== undefined ? extra.toolCallId : record.toolCallId,
      type,
      decision,
      attempt: record.attempt,
      argsMismatch: extra.argsMismatch ?? false,
      latencyUs: Math.round((performance.now() - startedAt) * 1000),
      at,
      policyVersion: record.policyVersion,
      detail: null,
    };
  }
}

function waitKey(projectId: string, key: string): string {
  return `${projectId}\u0000${key}`;
}

function leaseLost(record: CallRecord): AppError {
  return new AppError(
    "lease_lost",
    `this lease no longer owns call ${record.id} (now attempt ${record.attempt}, ${record.state}): the effect may have run twice`,
  );
}
