import { normalizeCallIds } from "../../core/identity";
import type { ArgsFingerprinter } from "../../core/fingerprint";
import { blocksOnStep } from "../../core/loop-detector";
import { alwaysExecutes } from "../../core/plan-begin";
import { kindOf } from "../../core/begin-guards";
import { type BeginLine, type BeginStep, decideBegin } from "../../core/decide-begin";
import { type BudgetStatus, budgetRefusal } from "../../core/budget";
import { isCompensationKey } from "../../core/plan-compensation";
import type { CompleteOutcome } from "../../core/plan-complete";
import type { BeginCall, PreparedCall } from "../../core/prepare-call";
import type { BeginDecision, CallRecord } from "../../core/record";
import type { EffectivePolicy } from "../../core/policy";
import type { GateEvent, GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import { BeginReader } from "./begin-reads";
import { BoundedGuesses } from "./bounded-guesses";
import { type AfterComplete, CallUpdates, MAX_WRITE_RACES, waitKey } from "./call-updates";
import { assertWithinJsonBounds } from "./json-bounds";
import { lineEvent } from "./gate-events";
import { newId } from "../ids";
import { InstallFingerprinter } from "./install-fingerprinter";
import { LeaseTokens } from "./lease-tokens";
import { OutcomeWaiters } from "./outcome-waiters";
import type { PolicyLookup, PolicySource } from "../policies/policy-source";
import type { PreviewGate } from "../multistep/preview-gate";
import type { BypassAsk, BypassGate } from "../resends/resend-bypass";
import { type KeyRoute, KeyRouter } from "../resends/resend-routing";
import { assertVisibleIds } from "./visible-ids";
import { ReplayCache } from "./replay-cache";
import { type Release, RunTurns } from "./run-turns";

/** A begin's place in its run's turns: `bypassed`, too many begins waited already (MAX_WAITING_TURNS). */
interface Turn {
  run: string;
  release: Release | null;
  bypassed: boolean;
}

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
  /** Completed records this process replayed: a replay of the same key skips reading it (replay-cache.ts). */
  private readonly replays = new ReplayCache();

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
      replays: this.replays,
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

  /**
   * Read → decide (lib/core/decide-begin.ts) → write conditionally; a write that lost a race is
   * read and decided again. Every guard, and shadow mode, is the decision's: this only does I/O.
   */
  async begin(projectId: string, raw: BeginInput): Promise<BeginDecision> {
    const startedAt = performance.now();
    // Every transport's identifiers in one spelling before the policy lookup and the key.
    const input = normalizeCallIds(raw);
    assertVisibleIds(input);
    // HTTP bodies were checked whole when read; in-process callers hand their args over directly.
    assertWithinJsonBounds(input.args, "args", ["args"]);
    const fingerprint = this.fingerprints.current() ?? (await this.fingerprints.load());
    return this.beginInRun(projectId, input, fingerprint, startedAt);
  }

  /**
   * A begin that may be a step of its run takes the run's turn when nobody holds it (no wait): its
   * reads then count as the turn's, and on Postgres its first execution may be claimed in the same
   * statement. Any other step waits for the turn once decided (beginInTurn).
   */
  private async beginInRun(projectId: string, input: BeginInput, fingerprint: ArgsFingerprinter, startedAt: number): Promise<BeginDecision> {
    const run = `${projectId}\u0000${input.runId}`;
    const turn: Turn = { run, release: this.mayBeStep(projectId, input) ? this.turns.tryTake(run) : null, bypassed: false };
    try {
      return await this.beginInTurn(projectId, input, fingerprint, startedAt, turn);
    } finally {
      turn.release?.();
    }
  }

  /** By the tool's policy as last seen (a guess): an undo, a read or a tool without loop detection is no step. */
  private mayBeStep(projectId: string, input: BeginInput): boolean {
    if (input.derivedKey !== undefined) return false;
    const seen = this.policySeen(projectId, input.tool);
    return seen === null || (seen.policy.loop.enabled && seen.policy.effect !== "read");
  }

  private async beginInTurn(projectId: string, input: BeginInput, fingerprint: ArgsFingerprinter, startedAt: number, turn: Turn): Promise<BeginDecision> {
    const reads = await this.reader.read(projectId, input, fingerprint, startedAt, turn.release !== null);
    if ("claimed" in reads) return reads.claimed;
    const { policy, call, firstRead, runAborted } = reads;
    let loop = reads.loop;
    // Begins plan on the key's newest generation; a bypass ask may be answered, or raise it, first.
    const routed = alwaysExecutes(policy.policy) ? null : await this.router.route(call, policy, firstRead, input.bypass, this.clock());
    const approval = routed && "decision" in routed ? routed : null;
    let route: KeyRoute | null = routed && !("decision" in routed) ? routed : null;
    let existing: CallRecord | null = approval ? approval.record : route ? route.record : null;
    // The cached record may only answer a replay (through the counter's guarded write).
    let cached = reads.cached && approval === null && existing === firstRead;
    const previewToken = input.previewToken !== undefined && this.previews !== null ? input.previewToken : null;
    const kind = kindOf({
      effect: policy.policy.effect,
      undo: call.derivedKey !== undefined && isCompensationKey(call.derivedKey),
      resent: route?.raised ?? false,
      previewToken: previewToken !== null,
    });
    const facts = {
      kind,
      policy,
      runAborted,
      approvalRequest: approval && approval.decision.decision === "approval_required" ? approval.decision.requestId : null,
      bypass: input.bypass === undefined ? null : input.bypass.token !== undefined ? ("token" as const) : ("ask" as const),
      previewToken: previewToken !== null,
      waitUntil: this.clock() + (input.waitMs ?? 0),
      newLeaseToken: this.newLeaseToken,
    };
    let latched = false;
    let previewSpent = false;
    let budgetRefused: BudgetStatus | null = null;
    let pollMs = LATCH_POLL_MIN_MS;
    for (let races = 0; races < MAX_WRITE_RACES; ) {
      const now = this.clock();
      const planned = route ? route.call : call;
      const step = decideBegin({
        ...facts,
        loop,
        call: planned,
        record: existing,
        generation: route?.generation,
        previewSpent,
        budgetRefused,
        latched,
        now,
        newCallId: newId("call", now),
      });
      if (cached && !(step.step === "write" && step.write.op === "replay")) {
        // Decided on the cache, and not a replay: decide again on the record as stored now.
        cached = false;
        this.replays.forget(existing!);
        route = route && (await this.router.refresh(route));
        existing = route ? route.record : null;
        continue;
      }
      if (step.step !== "wait" && turn.release === null && !turn.bypassed && step.line.loopStep && policy.policy.loop.enabled) {
        // A step decided on the history as read: decided again in the run's turn, on the history
        // with every step of the run ahead of it in this process written (RunTurns).
        turn.release = await this.turns.take(turn.run);
        turn.bypassed = turn.release === null;
        if (turn.release !== null) {
          [route, loop] = await Promise.all([route && this.router.refresh(route), this.reader.loopNow(call, policy)]);
          existing = route ? route.record : null;
          cached = false;
          continue;
        }
      }
      if (step.step === "wait") {
        // A wait on a live attempt holds no turn: the run's other steps go on meanwhile.
        turn.release?.();
        turn.release = null;
        latched = true;
        await this.waiters.wait(waitKey(projectId, planned.key), Math.min(pollMs, step.untilMs - now));
        pollMs = Math.min(pollMs * 2, LATCH_POLL_MAX_MS);
      } else if (step.step === "answer") {
        await this.recordDecision(policy, this.lineEvent(step.line, call, policy, startedAt));
        return step.answer;
      } else {
        if (step.redeemPreview) {
          await this.previews!.redeem(projectId, previewToken!, planned);
          previewSpent = true;
        }
        const written = await this.write(step, call, policy, startedAt);
        if (written !== null && "refused" in written) {
          // Decided again on the spend the counter found: no read needed.
          budgetRefused = written.refused;
          continue;
        }
        if (written !== null) {
          if (route) this.router.claimed(route, written.answer);
          return written.answer;
        }
        races++;
      }
      route = route && (await this.router.refresh(route));
      existing = route ? route.record : null;
      cached = false;
    }
    throw new AppError("contention", "the key is changing too fast to decide; retry the same request", {
      retryAfterSeconds: 1,
    });
  }

  private readonly newLeaseToken = (id: string, attempt: number) => this.leases.issue(id, attempt);

  /** One loop step at a time per run in this process (run-turns.ts). */
  private readonly turns = new RunTurns();

  /** The begin's ledger line, as decided, with what only the service knows. */
  private lineEvent(line: BeginLine, call: PreparedCall, policy: EffectivePolicy, startedAt: number): GateEvent {
    return lineEvent(line, call, policy.version, startedAt, this.clock());
  }

  /**
   * The decided write, conditionally: null when a concurrent writer changed the record first (read
   * and decide again); `refused` when the run's counter refused the charge (decide again on it).
   */
  private async write(
    step: Extract<BeginStep, { step: "write" }>,
    call: PreparedCall,
    policy: EffectivePolicy,
    startedAt: number,
  ): Promise<{ answer: BeginDecision } | { refused: BudgetStatus } | null> {
    const { write, charge } = step;
    const line = this.lineEvent(step.line, call, policy, startedAt);
    const leased = () => {
      if (step.leased) this.begun.set(write.record.id, write.record);
      return { answer: step.answer };
    };
    if (charge && write.op !== "replay") {
      const how = write.op === "insert" ? ({ op: "insert" } as const) : ({ op: "update", expectedVersion: write.expectedVersion } as const);
      const result = await this.store.writeCharged(how, write.record, line, charge);
      if (result.written) return leased();
      if (result.exceeded === null) return null;
      return { refused: budgetRefusal(result.exceeded, charge)! };
    }
    switch (write.op) {
      case "insert":
        return (await this.store.insertRecord(write.record, line)) ? leased() : null;
      case "update":
        return (await this.store.updateRecord(write.record, write.expectedVersion, line)) ? leased() : null;
      case "replay": {
        const replays = await this.store.recordReplay(write.record, write.record.version, line, this.writesBehind(policy, line));
        if (replays === null) {
          this.replays.forget(write.record);
          return null;
        }
        // The guarded write found this very record at this version: it is the key's, completed.
        this.replays.replayed(write.record);
        return { answer: { ...step.answer, replays } as BeginDecision };
      }
    }
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

  /**
   * The line of a decision that changes no record (in_progress, refused, conflict, blocked, a
   * preview or approval asked for) goes to the write-behind ledger, unless a blocking loop
   * detector must see it at once (blocksOnStep): then it is committed before the answer.
   */
  private recordDecision(policy: EffectivePolicy, line: GateEvent): Promise<void> {
    return this.writesBehind(policy, line) ? this.store.appendDecision(line) : this.store.appendEvent(line);
  }

  private writesBehind(policy: EffectivePolicy, line: GateEvent): boolean {
    return !blocksOnStep(line.loopStep, policy.policy.loop);
  }

  /** A claim made by the reads themselves: when it handed out a lease, its record is what the lease's complete will find. */
  private leased(record: CallRecord, decision: BeginDecision): BeginDecision {
    if (decision.decision === "execute" || decision.decision === "verify") this.begun.set(record.id, record);
    return decision;
  }

  /**
   * The tool's policy as this process last read it for a begin (a memory read): for what a caller
   * does after an `execute` under it, without reading the layers again. Null before any begin.
   */
  policySeen(projectId: string, tool: string): EffectivePolicy | null {
    return this.lastPolicy.get(`${projectId}\u0000${tool.normalize("NFC")}`) ?? null;
  }

  /**
   * `leaseToken` null: a final outcome that names the accepted operation it finishes instead.
   * `runWindowed`: the call was begun in an anonymous run (BeginCall.runWindowed), so its outcome is
   * kept for the MCP run window, not the whole TTL.
   */
  complete(projectId: string, callId: string, leaseToken: string | null, outcome: CompleteOutcome, runWindowed = false): Promise<CallRecord> {
    return this.updates.complete(projectId, callId, leaseToken, outcome, runWindowed);
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
