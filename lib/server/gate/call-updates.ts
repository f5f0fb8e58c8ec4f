import { reportedCharge, toMicros } from "../../core/budget";
import { type CompleteOutcome, planHeartbeat } from "../../core/plan-complete";
import type { CallRecord } from "../../core/record";
import { type EffectivePolicy, hasBudget } from "../../core/policy";
import type { GateEvent, GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import type { BoundedGuesses } from "./bounded-guesses";
import { leaseLost, planStorableComplete } from "./complete-errors";
import { recordEvent } from "./gate-events";
import { assertWithinJsonBounds } from "./json-bounds";
import type { LeaseTokens } from "./lease-tokens";
import type { OutcomeWaiters } from "./outcome-waiters";
import type { PolicyLookup, PolicySource } from "../policies/policy-source";

/** How many times a write may lose a compare-and-set race before the caller is told to retry. */
export const MAX_WRITE_RACES = 8;

/** After a complete is stored, and again when the same complete is retried (`repeated`). */
export type AfterComplete = (record: CallRecord, policy: EffectivePolicy, repeated: boolean) => Promise<void>;

/** What the call-id side shares with the begin side of one GateService. */
export interface CallUpdatesDeps {
  store: GateStore;
  policies: PolicySource;
  clock: () => number;
  leases: LeaseTokens;
  /** GateService.begun: the record this process stored when it leased the call. */
  begun: BoundedGuesses<CallRecord>;
  /** GateService.lastPolicy: the policy last seen per project and tool. */
  lastPolicy: BoundedGuesses<PolicyLookup>;
  waiters: OutcomeWaiters;
  afterComplete: AfterComplete | null;
}

/** The latch's key of a record: begins waiting on a live attempt wake when its complete is stored. */
export function waitKey(projectId: string, key: string): string {
  return `${projectId}\u0000${key}`;
}

/**
 * The gate's writes and reads by call id, after a begin handed out a lease: complete, heartbeat,
 * an unknown status check, and the record's status. Plans with the pure engine, writes
 * compare-and-set on the record's version, and plans again when another writer got there first.
 */
export class CallUpdates {
  private readonly store: GateStore;
  private readonly policies: PolicySource;
  private readonly clock: () => number;
  private readonly leases: LeaseTokens;
  private readonly begun: BoundedGuesses<CallRecord>;
  private readonly lastPolicy: BoundedGuesses<PolicyLookup>;
  private readonly waiters: OutcomeWaiters;
  private readonly afterComplete: AfterComplete | null;

  constructor(deps: CallUpdatesDeps) {
    this.store = deps.store;
    this.policies = deps.policies;
    this.clock = deps.clock;
    this.leases = deps.leases;
    this.begun = deps.begun;
    this.lastPolicy = deps.lastPolicy;
    this.waiters = deps.waiters;
    this.afterComplete = deps.afterComplete;
  }

  /** `leaseToken` null: a final outcome that names the accepted operation it finishes instead. */
  async complete(projectId: string, callId: string, leaseToken: string | null, outcome: CompleteOutcome, runWindowed = false): Promise<CallRecord> {
    const startedAt = performance.now();
    if (outcome.outcome === "succeeded") assertWithinJsonBounds(outcome.result, "the result", ["result"]);
    for (let races = 0; races < MAX_WRITE_RACES; races++) {
      // A reported cost may be charged under the policy: only a cost-free complete plans on a guess.
      const { record, policy, hinted, stamp } = await this.readForCall(projectId, callId, true, outcome.cost === undefined);
      const plan = planStorableComplete(record, leaseToken, outcome, policy, this.clock(), runWindowed);
      if (hinted && plan.op !== "update") {
        // Only a write is settled by the version check; anything else is decided on what is stored.
        this.begun.delete(callId);
        races--;
        continue;
      }
      if (plan.op === "already") {
        await this.afterComplete?.(plan.record, policy, true);
        return plan.record;
      }
      const fields = { startedAt, at: this.clock(), policyVersion: policy.version };
      if (plan.op === "lease_lost") {
        const lateAttempt = this.assertIssuedEarlier(record, leaseToken);
        await this.store.appendEvent(recordEvent(record, { ...fields, type: "lease_lost", decision: `complete_${outcome.outcome}`, detail: { lateAttempt } }));
        throw leaseLost(record);
      }
      if (plan.op === "operation_mismatch") {
        throw new AppError("invalid_state", `call ${record.id} is ${record.state}, not waiting for operation ${outcome.operationId ?? "(none)"}`);
      }
      const check = outcome.outcome === "accepted" ? undefined : outcome.check;
      const { cost } = outcome;
      // Budgets: a reported cost is added to the run's spend when its tool is budgeted in that currency.
      const charge =
        cost !== undefined && cost.amount > 0 && hasBudget(policy.policy) && cost.currency === policy.policy.budget.currency
          ? reportedCharge(policy.policy.budget, toMicros(cost.amount))
          : null;
      const detail = { ...(check ? { check } : {}), ...(cost ? { cost, costCounted: charge !== null } : {}) };
      const event = recordEvent(plan.record, { ...fields, type: "complete", decision: plan.record.state, detail: check || cost ? detail : null });
      const stored = charge
        ? (await this.store.writeCharged({ op: "update", expectedVersion: plan.expectedVersion }, plan.record, event, charge)).written
        : await this.updateUnderPolicy(plan.record, plan.expectedVersion, event, stamp);
      // The policy changed since it was last seen: plan again under the one in force, on the same hint.
      if (stored === null) continue;
      if (stored) {
        this.waiters.notify(waitKey(projectId, record.key));
        this.begun.delete(callId);
        await this.afterComplete?.(plan.record, policy, false);
        return plan.record;
      }
      this.begun.delete(callId);
    }
    throw new AppError("contention", "the call changed while completing; retry the same request", { retryAfterSeconds: 1 });
  }

  async heartbeat(projectId: string, callId: string, leaseToken: string, extendSeconds?: number): Promise<CallRecord> {
    const startedAt = performance.now();
    for (let races = 0; races < MAX_WRITE_RACES; races++) {
      const { record, policy, hinted, stamp } = await this.readForCall(projectId, callId, true, true);
      const plan = planHeartbeat(record, leaseToken, extendSeconds ?? policy.policy.leaseSeconds, this.clock(), policy.policy.leaseGraceSeconds);
      if (hinted && plan.op !== "update") {
        this.begun.delete(callId);
        races--;
        continue;
      }
      if (plan.op === "already") return plan.record;
      const fields = { startedAt, at: this.clock(), policyVersion: policy.version };
      if (plan.op === "lease_lost") {
        const lateAttempt = this.assertIssuedEarlier(record, leaseToken);
        await this.store.appendEvent(recordEvent(record, { ...fields, type: "lease_lost", decision: "heartbeat", detail: { lateAttempt } }));
        throw leaseLost(record);
      }
      // The asked extension is kept so the policy simulator can extend the lease as a draft would.
      const detail = extendSeconds === undefined ? null : { extendSeconds };
      const event = recordEvent(plan.record, { ...fields, type: "heartbeat", decision: "extended", detail });
      const stored = await this.updateUnderPolicy(plan.record, plan.expectedVersion, event, stamp);
      if (stored === null) continue;
      if (stored) {
        // The lease's complete will find this version.
        if (this.begun.get(callId) !== undefined) this.begun.set(callId, plan.record);
        return plan.record;
      }
      this.begun.delete(callId);
    }
    throw new AppError("contention", "the call changed during the heartbeat; retry", { retryAfterSeconds: 1 });
  }

  /**
   * A compare-and-set planned under `policy`; with `stamp` (a policy guessed, not read), written
   * only if the tool's layers still make it. Null: they do not — the policy in force is now the
   * guess, and the caller plans again.
   */
  private async updateUnderPolicy(record: CallRecord, expectedVersion: number, event: GateEvent, stamp: string | undefined): Promise<boolean | null> {
    if (stamp === undefined) return this.store.updateRecord(record, expectedVersion, event);
    const guarded = await this.store.updateRecordUnderPolicy!(record, expectedVersion, event, stamp);
    if (guarded.written) return true;
    const inForce = this.policies.fromLayers!(record.projectId, record.tool, guarded.layers);
    if (inForce.stamp === stamp) return false;
    this.lastPolicy.set(`${record.projectId}\u0000${record.tool}`, inForce);
    return null;
  }

  /**
   * Status checks: the checker of a `verify` attempt could not tell whether the effect happened.
   * Nothing is completed (no outcome is known); the ledger keeps `check: unknown` with the reason,
   * which puts the call in the operators' queue until someone resolves it by hand.
   */
  async reportUnknownCheck(projectId: string, callId: string, leaseToken: string, reason: string | null): Promise<CallRecord> {
    const startedAt = performance.now();
    const { record, policy } = await this.readForCall(projectId, callId, false);
    const fields = { startedAt, at: this.clock(), policyVersion: policy.version };
    if (record.leaseToken !== leaseToken) {
      const lateAttempt = this.assertIssuedEarlier(record, leaseToken);
      await this.store.appendEvent(recordEvent(record, { ...fields, type: "lease_lost", decision: "check_unknown", detail: { lateAttempt } }));
      throw leaseLost(record);
    }
    if (record.state !== "in_progress") return record;
    await this.store.appendEvent(recordEvent(record, { ...fields, type: "check", decision: "unknown", detail: reason ? { reason } : null }));
    return record;
  }

  /**
   * Only a token of an earlier attempt of this record means that attempt may have run beside the
   * current one (the alarm operators see). Any other token was never issued for the record: a 409
   * that writes nothing, so a made-up token cannot raise the alarm.
   */
  /** The earlier attempt the token was issued for (the one that answered late; the event's own attempt is the record's current one). */
  private assertIssuedEarlier(record: CallRecord, leaseToken: string | null): number {
    const attempt = leaseToken === null ? null : this.leases.attemptOf(record.id, leaseToken);
    if (attempt !== null && attempt < record.attempt) return attempt;
    throw new AppError("lease_lost", `this lease token was not issued for call ${record.id}: nothing was recorded`);
  }

  /**
   * A call's record and its tool's policy. `hinted`: the record is the one this process stored
   * when it leased the call (begun), not read now; the caller may only write on it, compare-and-set.
   * Otherwise the record and the policy are read together when this process knows the call's tool.
   */
  private async readForCall(
    projectId: string,
    callId: string,
    useHint: boolean,
    guessPolicy = false,
  ): Promise<{ record: CallRecord; policy: EffectivePolicy; hinted: boolean; stamp?: string }> {
    const known = this.begun.get(callId);
    if (useHint && known !== undefined && known.projectId === projectId) {
      // `guessPolicy`: the policy last seen for the tool, when the write can check in its own
      // statement that it is still in force (stamp): a complete or heartbeat is then one round trip.
      const guess = guessPolicy && this.store.updateRecordUnderPolicy && this.policies.fromLayers ? this.lastPolicy.get(`${projectId}\u0000${known.tool}`) : undefined;
      if (guess?.stamp !== undefined) return { record: known, policy: guess, hinted: true, stamp: guess.stamp };
      return { record: known, policy: await this.policies.forTool(projectId, known.tool), hinted: true };
    }
    const tool = known?.tool;
    const [record, guessed] = await Promise.all([
      this.getRecordOrThrow(projectId, callId),
      tool === undefined ? null : this.policies.forTool(projectId, tool),
    ]);
    const policy = guessed !== null && tool === record.tool ? guessed : await this.policies.forTool(projectId, record.tool);
    return { record, policy, hinted: false };
  }

  async getRecordOrThrow(projectId: string, callId: string): Promise<CallRecord> {
    const record = await this.store.findRecordById(projectId, callId);
    // Another project's call is "not found", never "forbidden": ids must not confirm existence.
    if (!record) throw new AppError("not_found", `no call ${callId} in this project`);
    return record;
  }
}
