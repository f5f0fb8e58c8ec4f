import { MAX_ID_LENGTH, badIdField, normalizeCallIds } from "../core/identity";
import { blocksOnStep } from "../core/loop-detector";
import { type BeginPlan, planBegin, alwaysExecutes } from "../core/plan-begin";
import { type BudgetCharge, type BudgetStatus, budgetBlocked, budgetRefusal, executionCharge } from "../core/budget";
import { shadowDetail, shadowName } from "../core/shadow";
import type { CompleteOutcome } from "../core/plan-complete";
import type { BeginCall, PreparedCall } from "../core/prepare-call";
import type { BeginDecision, CallRecord, LoopWarning } from "../core/record";
import { type EffectivePolicy, hasBudget } from "../core/policy";
import type { GateEvent, GateStore } from "../store/ports/gate-store";
import { AppError } from "./app-error";
import { type BeginContext, beginFields } from "./begin-context";
import { BeginReader } from "./begin-reads";
import { BoundedGuesses } from "./bounded-guesses";
import { type AfterComplete, CallUpdates, MAX_WRITE_RACES, waitKey } from "./call-updates";
import { assertWithinJsonBounds } from "./json-bounds";
import { beginEvent } from "./gate-events";
import { newId } from "./ids";
import { InstallFingerprinter } from "./install-fingerprinter";
import { LeaseTokens } from "./lease-tokens";
import { OutcomeWaiters } from "./outcome-waiters";
import type { PolicyLookup, PolicySource } from "./policy-source";
import type { PreviewGate } from "./previews/preview-gate";
import type { BypassAsk, BypassGate } from "./resend-bypass";
import { type KeyRoute, KeyRouter } from "./resend-routing";

export interface BeginInput extends Omit<BeginCall, "projectId"> {
  waitMs?: number;
  /** A resend: an approved request's bypass token, or an ask for one (resend-bypass.ts). */
  bypass?: BypassAsk;
  /** A preview's single-use token (previews/preview-service.ts). */
  previewToken?: string;
}

const LATCH_POLL_MIN_MS = 10;
const LATCH_POLL_MAX_MS = 100;

export interface GateServiceOptions {
  clock?: () => number;
  /** Decides begins that ask for a bypass; without it they are refused. */
  bypass?: BypassGate;
  /** Derives lease tokens from the install's secret; default: a secret of this process only. */
  leaseTokens?: LeaseTokens;
  /**
   * After a complete is stored, and again when the same complete is retried (`repeated`): sagas
   * abort a run here, so a lost answer to the first try cannot lose the abort.
   */
  afterComplete?: AfterComplete;
  /** Spends preview tokens for tools under `preview: required|approve`; without it such tools never execute. */
  previews?: PreviewGate;
}

/**
 * Composes the pure engine with the store: read the policy and the record, plan, apply the plan
 * conditionally, and re-plan when another writer got there first. Knows nothing of HTTP.
 */
export class GateService {
  private readonly waiters = new OutcomeWaiters();
  private readonly clock: () => number;
  private readonly router: KeyRouter;
  private readonly leases: LeaseTokens;
  /** The policy last seen per project and tool: only a guess, to read everything a begin needs at once. */
  private readonly lastPolicy = new BoundedGuesses<PolicyLookup>();
  /**
   * The record as this process stored it when it handed out a lease (execute, verify), until it is
   * completed: a complete or heartbeat plans on it and writes at once, compare-and-set on its
   * version, instead of reading it back first (one round trip instead of two on Postgres). Any
   * change by anyone since bumps the version, so a stale hint only fails the write; that, or a plan
   * that would not write, is decided again on a fresh read.
   */
  private readonly begun = new BoundedGuesses<CallRecord>();
  private readonly fingerprints: InstallFingerprinter;

  constructor(
    readonly store: GateStore,
    private readonly policies: PolicySource,
    options: GateServiceOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.router = new KeyRouter(store, options.bypass ?? null);
    this.leases = options.leaseTokens ?? new LeaseTokens();
    this.previews = options.previews ?? null;
    this.fingerprints = new InstallFingerprinter(store, this.clock);
    this.reader = new BeginReader({
      store,
      policies,
      clock: this.clock,
      leases: this.leases,
      lastPolicy: this.lastPolicy,
      leased: (record, decision) => this.leased(record, decision),
    });
    this.updates = new CallUpdates({
      store,
      policies,
      clock: this.clock,
      leases: this.leases,
      begun: this.begun,
      lastPolicy: this.lastPolicy,
      waiters: this.waiters,
      afterComplete: options.afterComplete ?? null,
    });
  }

  private readonly previews: PreviewGate | null;

  /** Everything a begin reads before it plans (begin-reads.ts). */
  private readonly reader: BeginReader;

  /** Complete, heartbeat, checks and status: everything after the begin, by call id. */
  private readonly updates: CallUpdates;

  async begin(projectId: string, raw: BeginInput): Promise<BeginDecision> {
    const startedAt = performance.now();
    // Every transport's identifiers in one spelling before the policy lookup and the key.
    const input = normalizeCallIds(raw);
    assertVisibleIds(input);
    // HTTP bodies were checked whole when read; in-process callers hand their args over directly.
    assertWithinJsonBounds(input.args, "args", ["args"]);
    const fingerprint = this.fingerprints.current() ?? (await this.fingerprints.load());
    const reads = await this.reader.read(projectId, input, fingerprint, startedAt);
    if ("claimed" in reads) return reads.claimed;
    const { policy, call, loop, firstRead } = reads;
    const unkeyed = alwaysExecutes(policy.policy);
    const bypass = input.bypass === undefined ? null : input.bypass.token !== undefined ? "token" : "ask";
    const shadow = policy.policy.mode === "shadow";
    const ctx: BeginContext = { call, policy, startedAt, latched: false, warning: undefined, bypass, shadow };
    if (loop) {
      const found = { reason: "loop_detected" as const, pattern: loop.pattern.map((step) => step.tool), repeats: loop.repeats };
      // A begin carrying a human-approved bypass token is not the agent looping: flag it, never block it.
      if (policy.policy.loop.action === "block" && input.bypass?.token === undefined) {
        const blocked: BeginDecision = { decision: "blocked", ...found };
        return shadow ? this.shadowExecute(ctx, blocked) : this.block(ctx, found, firstRead);
      }
      ctx.warning = found;
    }

    const deadline = this.clock() + (input.waitMs ?? 0);
    let pollMs = LATCH_POLL_MIN_MS;
    // Begins plan on the key's newest generation; a bypass ask may be answered, or raise it, first.
    const routed = unkeyed ? null : await this.router.route(call, policy, firstRead, input.bypass, this.clock());
    if (routed && "decision" in routed) {
      if (shadow) return this.shadowExecute(ctx, routed.decision);
      return (await this.apply({ op: "none", record: routed.record, decision: routed.decision, argsMismatch: false }, ctx))!;
    }
    let route: KeyRoute | null = routed;
    let existing: CallRecord | null = route ? route.record : null;
    let previewSpent = false;
    for (let races = 0; races < MAX_WRITE_RACES; ) {
      const now = this.clock();
      const planned = route ? route.call : call;
      const plan = planBegin(existing, planned, {
        now,
        policy,
        newCallId: () => newId("call", now),
        newLeaseToken: (id, attempt) => this.leases.issue(id, attempt),
        generation: route?.generation,
      });

      if (plan.decision.decision === "in_progress" && now < deadline && !shadow) {
        ctx.latched = true;
        await this.waiters.wait(waitKey(projectId, planned.key), Math.min(pollMs, deadline - now));
        pollMs = Math.min(pollMs * 2, LATCH_POLL_MAX_MS);
      } else {
        // Shadow mode: whatever the gate would have answered, the agent runs the tool as it did before.
        if (shadow) {
          const would = await this.shadowFinding(ctx, plan, input.previewToken);
          if (would) return this.shadowExecute(ctx, would);
        }
        // A first execution of a previewed tool spends its token first; a resend's approval stands in for it.
        if (!shadow && plan.decision.decision === "execute" && policy.policy.preview !== "none" && !previewSpent && input.bypass?.token === undefined) {
          if (input.previewToken === undefined || !this.previews) return this.askForPreview(ctx, existing, policy.policy.preview, planned);
          await this.previews.redeem(projectId, input.previewToken, planned);
          previewSpent = true;
        }
        const applied = await this.apply(plan, ctx);
        if (applied) {
          if (route && applied.decision !== "blocked") this.router.claimed(route, applied);
          const shadowed = shadow && applied.decision === "execute" ? ({ ...applied, shadowDecision: "would_execute" } as BeginDecision) : applied;
          return ctx.warning ? ({ ...shadowed, loopWarning: ctx.warning } as BeginDecision) : shadowed;
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

  /**
   * Shadow mode: what the gate would have answered instead of this plan's execute, or null when it
   * would have executed too. A first execution would also need a preview's token and a budget.
   */
  private async shadowFinding(ctx: BeginContext, plan: BeginPlan, previewToken: string | undefined): Promise<BeginDecision | null> {
    if (plan.decision.decision !== "execute") return plan.decision;
    const { policy } = ctx.policy;
    if (policy.preview !== "none" && previewToken === undefined && ctx.bypass !== "token") {
      return { decision: "preview_required", key: ctx.call.key, mode: policy.preview, argsFingerprint: ctx.call.argsFingerprint };
    }
    const charge = this.chargeFor(plan, ctx);
    if (!charge) return null;
    const refusal = budgetRefusal(await this.store.runSpend(ctx.call.projectId, ctx.call.runId), { ...charge, enforce: true });
    return refusal ? budgetBlocked(refusal) : null;
  }

  /**
   * Shadow mode's answer: the call runs under a record of its own (as a tool that never dedupes),
   * so its complete is recorded, and its event keeps what the gate would have answered.
   */
  private async shadowExecute(ctx: BeginContext, would: BeginDecision): Promise<BeginDecision> {
    const now = this.clock();
    const policy: EffectivePolicy = { ...ctx.policy, policy: { ...ctx.policy.policy, onDuplicate: "execute" } };
    const newLeaseToken = (id: string, attempt: number) => this.leases.issue(id, attempt);
    const plan = planBegin(null, ctx.call, { now, policy, newCallId: () => newId("call", now), newLeaseToken });
    if (plan.op !== "insert" || plan.decision.decision !== "execute") throw new Error("an unkeyed plan always inserts");
    const shadowDecision = shadowName(would);
    const detail = { ...shadowDetail(would), ...(ctx.warning ? { loopWarning: ctx.warning } : {}) };
    const fields = { ...beginFields(ctx, plan.decision, this.clock(), detail), shadowDecision };
    const event = beginEvent(plan.record, ctx.call, fields);
    const charge = this.chargeFor(plan, ctx);
    const written = charge ? (await this.store.writeCharged({ op: "insert" }, plan.record, event, charge)).written : await this.store.insertRecord(plan.record, event);
    if (!written) throw new AppError("contention", "the call changed while deciding; retry the same request", { retryAfterSeconds: 1 });
    this.begun.set(plan.record.id, plan.record);
    return { ...plan.decision, shadowDecision, ...(ctx.warning ? { loopWarning: ctx.warning } : {}) };
  }

  /**
   * Budgets: a new execution of a budgeted tool is charged to its run; a retry of the same record
   * after a retryable failure or a lost lease is the same call, counted once. Shadow mode counts
   * and never refuses.
   */
  private chargeFor(plan: BeginPlan, ctx: BeginContext): BudgetCharge | null {
    if (!hasBudget(ctx.policy.policy)) return null;
    if (plan.op === "update" ? plan.record.attempt > 1 : plan.op !== "insert") return null;
    return executionCharge(ctx.policy.policy.budget, !ctx.shadow);
  }

  /** A begin refused by its run's budget: its ledger event is `blocked` with reason `budget_exceeded` and the spend. */
  private async blockForBudget(ctx: BeginContext, status: BudgetStatus, record: CallRecord | null): Promise<BeginDecision> {
    const decision = budgetBlocked(status);
    const fields = beginFields(ctx, decision, this.clock(), { reason: "budget_exceeded", budget: status });
    // The run is not repeating itself: a refused step is no loop step.
    await this.recordDecision(ctx, beginEvent(record, ctx.call, { ...fields, loopStep: false }));
    return decision;
  }

  private async askForPreview(ctx: BeginContext, record: CallRecord | null, mode: "required" | "approve", call: PreparedCall): Promise<BeginDecision> {
    const decision: BeginDecision = { decision: "preview_required", key: call.key, mode, argsFingerprint: call.argsFingerprint };
    await this.recordDecision(ctx, beginEvent(record, ctx.call, beginFields(ctx, decision, this.clock())));
    return decision;
  }

  /**
   * The blocked begin's event names the key's record when there is one (the call the run keeps
   * repeating), so the call's ledger and the calls filter show the block and its cycle.
   */
  private async block(ctx: BeginContext, found: LoopWarning, record: CallRecord | null): Promise<BeginDecision> {
    const decision: BeginDecision = { decision: "blocked", ...found };
    await this.recordDecision(ctx, beginEvent(record, ctx.call, beginFields(ctx, decision, this.clock(), { loop: found })));
    return decision;
  }

  /** The key and fingerprint a begin of this call would have, under the tool's policy in force (previews). */
  async prepareFor(projectId: string, raw: Omit<BeginCall, "projectId">): Promise<{ policy: EffectivePolicy; call: PreparedCall }> {
    const input = normalizeCallIds(raw);
    assertVisibleIds(input);
    const fingerprint = this.fingerprints.current() ?? (await this.fingerprints.load());
    const policy = await this.policies.forTool(projectId, input.tool);
    const call = this.reader.prepare({ ...input, projectId }, policy, fingerprint);
    if (alwaysExecutes(policy.policy) || call.legacyKey === null) return { policy, call };
    // The key the begin will plan on: an older version's record may hold the unkeyed one.
    return { policy, call: (await this.reader.underLegacyKey(call, await this.store.findRecordByKey(projectId, call.key))).call };
  }

  /** Null when a concurrent writer changed the record first: plan again from a fresh read. */
  private async apply(plan: BeginPlan, ctx: BeginContext): Promise<BeginDecision | null> {
    // The same tool-call id sent again (an HTTP client's retry of one Idempotency-Key, an SDK's
    // resend of a lost answer) is a transport retry, not the model deciding again: never a loop step.
    const resent = (record: CallRecord) =>
      (plan.op === "replay" || plan.op === "none") && record.toolCallId !== null && record.toolCallId === ctx.call.toolCallId;
    const event = (record: CallRecord, argsMismatch: boolean) => {
      const fields = beginFields(ctx, plan.decision, this.clock(), undefined, resent(record));
      // Same key, other args: keep what this call sent (redacted like the record's), so an operator
      // can set both argument sets side by side. Only mismatches pay for it.
      if (argsMismatch && ctx.call.argsText !== null) fields.detail = { ...fields.detail, args: JSON.parse(ctx.call.argsText) as unknown };
      return beginEvent(record, ctx.call, { ...fields, argsMismatch });
    };
    const charge = this.chargeFor(plan, ctx);
    if (charge && (plan.op === "insert" || plan.op === "update")) {
      const write = plan.op === "insert" ? ({ op: "insert" } as const) : ({ op: "update", expectedVersion: plan.expectedVersion } as const);
      const result = await this.store.writeCharged(write, plan.record, event(plan.record, false), charge);
      if (result.written) return this.leased(plan.record, plan.decision);
      if (result.exceeded === null) return null;
      return this.blockForBudget(ctx, budgetRefusal(result.exceeded, charge)!, plan.op === "update" ? plan.record : null);
    }
    switch (plan.op) {
      case "insert":
        return (await this.store.insertRecord(plan.record, event(plan.record, false))) ? this.leased(plan.record, plan.decision) : null;
      case "update":
        return (await this.store.updateRecord(plan.record, plan.expectedVersion, event(plan.record, false)))
          ? this.leased(plan.record, plan.decision)
          : null;
      case "replay": {
        const line = event(plan.record, plan.decision.argsMismatch);
        const replays = await this.store.recordReplay(plan.record, plan.record.version, line, this.writesBehind(ctx, line));
        return replays === null ? null : { ...plan.decision, replays };
      }
      case "none":
        await this.recordDecision(ctx, event(plan.record, plan.argsMismatch));
        return plan.decision;
    }
  }

  /**
   * The line of a decision that changes no record (in_progress, refused, conflict, blocked, a
   * preview or approval asked for) goes to the write-behind ledger, unless a blocking loop
   * detector must see it at once (blocksOnStep): then it is committed before the answer.
   */
  private recordDecision(ctx: BeginContext, line: GateEvent): Promise<void> {
    return this.writesBehind(ctx, line) ? this.store.appendDecision(line) : this.store.appendEvent(line);
  }

  private writesBehind(ctx: BeginContext, line: GateEvent): boolean {
    return !blocksOnStep(line.loopStep, ctx.policy.policy.loop);
  }

  /** A written begin: when it handed out a lease, its record is what the lease's complete will find. */
  private leased(record: CallRecord, decision: BeginDecision): BeginDecision {
    if (decision.decision === "execute" || decision.decision === "verify") this.begun.set(record.id, record);
    return decision;
  }

  /** `leaseToken` null: a final outcome that names the accepted operation it finishes instead. */
  complete(projectId: string, callId: string, leaseToken: string | null, outcome: CompleteOutcome): Promise<CallRecord> {
    return this.updates.complete(projectId, callId, leaseToken, outcome);
  }

  heartbeat(projectId: string, callId: string, leaseToken: string, extendSeconds?: number): Promise<CallRecord> {
    return this.updates.heartbeat(projectId, callId, leaseToken, extendSeconds);
  }

  /** A `verify` attempt's checker could not tell whether the effect happened (CallUpdates.reportUnknownCheck). */
  reportUnknownCheck(projectId: string, callId: string, leaseToken: string, reason: string | null): Promise<CallRecord> {
    return this.updates.reportUnknownCheck(projectId, callId, leaseToken, reason);
  }

  getRecordOrThrow(projectId: string, callId: string): Promise<CallRecord> {
    return this.updates.getRecordOrThrow(projectId, callId);
  }
}

/**
 * The wire refuses invisible characters and over-long ids (contract/tool-name.ts); callers in the
 * same process (the MCP and HTTP gateways, the SDK's in-process transport) reach the service
 * without it: an upstream's tool name or a gateway path with a zero-width character would skip the
 * policy of the tool it looks like.
 */
function assertVisibleIds(input: Parameters<typeof badIdField>[0]): void {
  const bad = badIdField(input);
  if (bad === null) return;
  const what = bad.field === "tool" ? "a tool name" : `an id (${bad.field})`;
  const message = bad.problem === "length" ? `${what} must be 1 to ${MAX_ID_LENGTH} characters` : `control and zero-width characters are not allowed in ${what}`;
  throw new AppError("invalid_input", message, { issues: [{ path: [bad.field], message, code: bad.problem === "length" ? "too_big" : "invisible_characters" }] });
}
