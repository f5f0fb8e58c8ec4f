import { KeyDerivationError } from "../core/keys";
import { type CallSignature, type LoopMatch, detectLoop, isLoopStep, loopHistorySize } from "../core/loop-detector";
import { type BeginPlan, planBegin, alwaysExecutes } from "../core/plan-begin";
import { type CompleteOutcome, planComplete, planHeartbeat } from "../core/plan-complete";
import { type BeginCall, type PreparedCall, prepareCall } from "../core/prepare-call";
import type { BeginDecision, CallRecord, LoopWarning } from "../core/record";
import type { EffectivePolicy, LoopPolicy } from "../core/policy";
import type { GateStore } from "../store/types";
import { AppError } from "./app-error";
import { type EventFields, beginEvent, recordEvent } from "./gate-events";
import { newId, newSecret } from "./ids";
import { OutcomeWaiters } from "./outcome-waiters";
import type { PolicySource } from "./policy-source";
import type { BypassAsk, BypassGate } from "./resend-bypass";
import { type KeyRoute, KeyRouter } from "./resend-routing";

export interface BeginInput extends Omit<BeginCall, "projectId"> {
  waitMs?: number;
  /** A resend: an approved request's bypass token, or an ask for one (resend-bypass.ts). */
  bypass?: BypassAsk;
}

/** How many times a write may lose a compare-and-set race before the caller is told to retry. */
const MAX_WRITE_RACES = 8;
const LATCH_POLL_MIN_MS = 10;
const LATCH_POLL_MAX_MS = 100;

export interface GateServiceOptions {
  clock?: () => number;
  /** Decides begins that ask for a bypass; without it they are refused. */
  bypass?: BypassGate;
}

/** What every event of one begin shares. */
interface BeginContext {
  call: PreparedCall;
  policy: EffectivePolicy;
  startedAt: number;
  /** The begin waited on a live attempt: its outcome is a concurrent duplicate's, not a new step. */
  latched: boolean;
  warning: LoopWarning | undefined;
}

/**
 * Composes the pure engine with the store: read the policy and the record, plan, apply the plan
 * conditionally, and re-plan when another writer got there first. Knows nothing of HTTP.
 */
export class GateService {
  private readonly waiters = new OutcomeWaiters();
  private readonly clock: () => number;
  private readonly router: KeyRouter;

  constructor(
    readonly store: GateStore,
    private readonly policies: PolicySource,
    options: GateServiceOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.router = new KeyRouter(store, options.bypass ?? null);
  }

  async begin(projectId: string, input: BeginInput): Promise<BeginDecision> {
    const startedAt = performance.now();
    const policy = await this.policies.forTool(projectId, input.tool);
    const call = this.prepare({ ...input, projectId }, policy);
    // A tool that never dedupes gets a row of its own each time: there is no record to read.
    const unkeyed = alwaysExecutes(policy.policy);
    // The loop history, the record and a first sighting of the tool do not depend on each other.
    const [loop, firstRead] = await Promise.all([
      this.detectLoop(call, policy.policy.loop),
      unkeyed ? null : this.store.findRecordByKey(projectId, call.key),
      policy.known === false ? this.store.discoverTool(projectId, call.tool, this.clock()) : null,
    ]);
    const ctx: BeginContext = { call, policy, startedAt, latched: false, warning: undefined };
    if (loop) {
      const found = { reason: "loop_detected" as const, pattern: loop.pattern.map((step) => step.tool), repeats: loop.repeats };
      // A begin carrying a human-approved bypass token is not the agent looping: flag it, never block it.
      if (policy.policy.loop.action === "block" && input.bypass?.token === undefined) return this.block(ctx, found);
      ctx.warning = found;
    }

    const deadline = this.clock() + (input.waitMs ?? 0);
    let pollMs = LATCH_POLL_MIN_MS;
    // Begins plan on the key's newest generation; a bypass ask may be answered, or raise it, first.
    const routed = unkeyed ? null : await this.router.route(call, policy, firstRead, input.bypass, this.clock());
    if (routed && "decision" in routed) return (await this.apply({ op: "none", record: routed.record, decision: routed.decision, argsMismatch: false }, ctx))!;
    let route: KeyRoute | null = routed;
    let existing: CallRecord | null = route ? route.record : null;
    for (let races = 0; races < MAX_WRITE_RACES; ) {
      const now = this.clock();
      const planned = route ? route.call : call;
      const plan = planBegin(existing, planned, {
        now,
        policy,
        newCallId: () => newId("call", now),
        newLeaseToken: () => newSecret(),
        generation: route?.generation,
      });

      if (plan.decision.decision === "in_progress" && now < deadline) {
        ctx.latched = true;
        await this.waiters.wait(waitKey(projectId, planned.key), Math.min(pollMs, deadline - now));
        pollMs = Math.min(pollMs * 2, LATCH_POLL_MAX_MS);
      } else {
        const applied = await this.apply(plan, ctx);
        if (applied) {
          if (route) this.router.claimed(route, applied);
          return ctx.warning ? ({ ...applied, loopWarning: ctx.warning } as BeginDecision) : applied;
        }
        races++;
      }
      route = route && (await this.router.refresh(route));
      existing = route ? route.record : null;
    }
    throw new AppError("contention", "the key is changing too fast to decide; retry the same request", {
      retryAfterSeconds: 1,
    });
  }

  /** The run's latest steps from the database (so every gate process sees them), plus this call. */
  private async detectLoop(call: PreparedCall, loop: LoopPolicy): Promise<LoopMatch | null> {
    if (!loop.enabled) return null;
    const history = await this.store.loopHistory(call.projectId, call.runId, loopHistorySize(loop));
    const current: CallSignature = { tool: call.tool, argsFingerprint: call.argsFingerprint };
    return detectLoop([...history.reverse(), current], loop);
  }

  private async block(ctx: BeginContext, found: LoopWarning): Promise<BeginDecision> {
    const decision: BeginDecision = { decision: "blocked", ...found };
    await this.store.appendEvent(beginEvent(null, ctx.call, this.beginFields(ctx, decision, { loop: found })));
    return decision;
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
  private async apply(plan: BeginPlan, ctx: BeginContext): Promise<BeginDecision | null> {
    const event = (record: CallRecord, argsMismatch: boolean) =>
      beginEvent(record, ctx.call, { ...this.beginFields(ctx, plan.decision), argsMismatch });
    switch (plan.op) {
      case "insert":
        return (await this.store.insertRecord(plan.record, event(plan.record, false))) ? plan.decision : null;
      case "update":
        return (await this.store.updateRecord(plan.record, plan.expectedVersion, event(plan.record, false)))
          ? plan.decision
          : null;
      case "replay": {
        const replays = await this.store.recordReplay(plan.record, plan.record.version, event(plan.record, plan.decision.argsMismatch));
        return replays === null ? null : { ...plan.decision, replays };
      }
      case "none":
        await this.store.appendEvent(event(plan.record, plan.argsMismatch));
        return plan.decision;
    }
  }

  private beginFields(ctx: BeginContext, decision: BeginDecision, detail?: Record<string, unknown>): EventFields {
    return {
      type: "begin",
      decision: decision.decision,
      startedAt: ctx.startedAt,
      at: this.clock(),
      policyVersion: ctx.policy.version,
      loopStep: isLoopStep(decision, ctx.latched),
      detail: detail ?? (ctx.warning ? { loopWarning: ctx.warning } : null),
    };
  }

  async complete(projectId: string, callId: string, leaseToken: string, outcome: CompleteOutcome): Promise<CallRecord> {
    const startedAt = performance.now();
    for (let races = 0; races < MAX_WRITE_RACES; races++) {
      const record = await this.getRecordOrThrow(projectId, callId);
      const policy = await this.policies.forTool(projectId, record.tool);
      const plan = planComplete(record, leaseToken, outcome, policy, this.clock());
      if (plan.op === "already") return plan.record;
      const fields = { startedAt, at: this.clock(), policyVersion: policy.version };
      if (plan.op === "lease_lost") {
        await this.store.appendEvent(recordEvent(record, { ...fields, type: "lease_lost", decision: `complete_${outcome.outcome}` }));
        throw leaseLost(record);
      }
      const event = recordEvent(plan.record, { ...fields, type: "complete", decision: plan.record.state });
      if (await this.store.updateRecord(plan.record, plan.expectedVersion, event)) {
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
      if (plan.op === "already") return plan.record;
      const fields = { startedAt, at: this.clock(), policyVersion: policy.version };
      if (plan.op === "lease_lost") {
        await this.store.appendEvent(recordEvent(record, { ...fields, type: "lease_lost", decision: "heartbeat" }));
        throw leaseLost(record);
      }
      const event = recordEvent(plan.record, { ...fields, type: "heartbeat", decision: "extended" });
      if (await this.store.updateRecord(plan.record, plan.expectedVersion, event)) {
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
