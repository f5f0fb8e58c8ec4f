import type { ArgsFingerprinter } from "../../core/fingerprint";
import { KeyDerivationError } from "../../core/keys";
import { type CallSignature, type LoopMatch, detectLoop, loopHistorySize } from "../../core/loop-detector";
import { alwaysExecutes } from "../../core/plan-begin";
import { decideBegin } from "../../core/decide-begin";
import { type BeginCall, type PreparedCall, prepareCall } from "../../core/prepare-call";
import type { BeginDecision, CallRecord } from "../../core/record";
import { type EffectivePolicy, type LoopPolicy, type ToolPolicy, hasBudget } from "../../core/policy";
import type { GateEvent, GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import type { BoundedGuesses } from "./bounded-guesses";
import { lineEvent } from "./gate-events";
import { newId } from "../ids";
import type { LeaseTokens } from "./lease-tokens";
import type { PolicyLookup, PolicySource } from "../policies/policy-source";
import type { ReplayCache } from "./replay-cache";

/** The begin as the reads need it (GateService's BeginInput, without importing the service back). */
export interface ReadInput extends Omit<BeginCall, "projectId"> {
  bypass?: unknown;
}

/** Reads a begin already made under a guessed policy that still hold under the policy in force. */
interface HeldReads {
  history?: CallSignature[];
  record?: CallRecord | null;
  runAborted?: boolean;
}

/** What a begin plans on, as read: the loop history (null when loops are off), the record, the run's abort. */
interface PlanReads {
  history: CallSignature[] | null;
  record: CallRecord | null;
  /** Null when not read: the call is no forward work (a read, an undo), which an abort does not stop. */
  runAborted: boolean | null;
}

/** Whether a begin needs its run's abort: only forward work is refused in an aborted run (begin-guards.ts). */
function needsRunState(call: Pick<BeginCall, "derivedKey">, policy: ToolPolicy): boolean {
  return call.derivedKey === undefined && policy.effect !== "read";
}

/** What a begin reads before it plans. */
export interface BeginReads {
  policy: PolicyLookup;
  call: PreparedCall;
  loop: LoopMatch | null;
  firstRead: CallRecord | null;
  /** The run was aborted (sagas): it takes no new forward steps. */
  runAborted: boolean;
  /**
   * `firstRead` is this process's cached copy of a completed record (ReplayCache), not a read:
   * it may only answer a replay, through the counter's guarded write; anything else is decided
   * again on a fresh read.
   */
  cached: boolean;
}

export interface BeginReaderDeps {
  store: GateStore;
  policies: PolicySource;
  clock: () => number;
  leases: LeaseTokens;
  /** The policy last seen per project and tool (GateService's): only a guess. */
  lastPolicy: BoundedGuesses<PolicyLookup>;
  /** A claim made by the reads themselves (Postgres' one-statement begin) hands out its lease here. */
  leased: (record: CallRecord, decision: BeginDecision) => BeginDecision;
  /** Completed records this process replayed, by (project, key): read instead of the record (replay-cache.ts). */
  replays: ReplayCache;
}

/**
 * What a begin reads before it plans: the policy in force, the call prepared under it, the run's
 * loop history and the key's record, in as few round trips as the store allows (and, on
 * Postgres, a first execution's claim in the same statement).
 */
export class BeginReader {
  constructor(private readonly deps: BeginReaderDeps) {}

  /**
   * The policy, the run's loop history and the record, read together. The key and the loop window
   * depend on the policy, so they are first guessed from the policy this process last saw for the
   * tool; what the guess got wrong is read again. The decision always uses the policy read now.
   * On Postgres that is one round trip instead of two before the write.
   */
  async read(projectId: string, input: ReadInput, fingerprint: ArgsFingerprinter, startedAt: number, mayClaim: boolean): Promise<BeginReads | { claimed: BeginDecision }> {
    const toolKey = `${projectId}\u0000${input.tool}`;
    const combined = this.deps.store.beginStatement !== undefined;
    // A source that is not the store's layers answers before the statement: a claim made there is
    // then made under the policy in force, not a guess.
    const asked = combined && !this.deps.policies.fromLayers ? await this.deps.policies.forTool(projectId, input.tool) : null;
    const guess = asked ?? this.deps.lastPolicy.get(toolKey);
    const guessed = guess ? this.tryPrepare({ ...input, projectId }, guess, fingerprint) : null;
    let policy: PolicyLookup;
    let guessedReads: PlanReads | null;
    if (combined && guessed !== null) {
      const read = await this.readOrClaim(guessed, guess!, input, startedAt, asked, mayClaim);
      if ("claimed" in read) return read;
      ({ policy, reads: guessedReads } = read);
    } else {
      const cachedGuess = guessed ? this.cachedRecord(guessed, input) : undefined;
      [policy, guessedReads] = await Promise.all([
        asked ?? this.deps.policies.forTool(projectId, input.tool),
        guessed ? this.beginReads(guessed, guess!.policy, { record: cachedGuess }) : null,
      ]);
    }
    this.deps.lastPolicy.set(toolKey, policy);
    // Preparing a call is a pure function of the call and the policy, and the policy sources hand out
    // one object per content: when the guess is the very policy in force, its canonical args, hashes
    // and key are what a second preparation would compute. (A source that builds a new object each
    // time only loses this shortcut.)
    const call = guessed !== null && guess!.policy === policy.policy ? guessed : this.prepare({ ...input, projectId }, policy, fingerprint);
    const loopWindow = (p: EffectivePolicy) => (p.policy.loop.enabled ? loopHistorySize(p.policy.loop) : -1);
    const historyHolds = guessed !== null && loopWindow(guess!) === loopWindow(policy) && guessed.runId === call.runId;
    // A tool that never dedupes gets a row of its own each time: there is no record to read.
    const unkeyed = alwaysExecutes(policy.policy);
    const recordHolds = guessed !== null && !alwaysExecutes(guess!.policy) && guessed.key === call.key;
    const held: HeldReads = {
      history: historyHolds && guessedReads?.history ? guessedReads.history : undefined,
      record: recordHolds ? guessedReads!.record : combined ? undefined : this.cachedRecord(call, input),
      // The run's abort depends on the run only.
      runAborted: guessed !== null && guessed.runId === call.runId && guessedReads?.runAborted != null ? guessedReads.runAborted : undefined,
    };
    const [{ history, record: keyedRead, runAborted }] = await Promise.all([
      this.beginReads(call, policy.policy, held),
      policy.known === false ? this.deps.store.discoverTool(projectId, call.tool, this.deps.clock()) : null,
    ]);
    const loop = history ? loopOf(call, history, policy.policy.loop) : null;
    const { call: keyed, record: firstRead } = unkeyed ? { call, record: null } : await this.underLegacyKey(call, keyedRead);
    const cached = firstRead !== null && this.deps.replays.holds(firstRead);
    return { policy, call: keyed, loop, firstRead, runAborted: runAborted ?? false, cached };
  }

  /**
   * The cached completed record of the call's key, in place of reading it: only for a plain begin
   * (a resend's bypass is authorised on the record it finds, so it always reads), and not on
   * Postgres, whose one-statement begin reads the record with the policy for nothing more.
   */
  private cachedRecord(call: PreparedCall, input: ReadInput): CallRecord | undefined {
    if (input.bypass !== undefined || this.deps.store.beginStatement !== undefined) return undefined;
    return this.deps.replays.get(call.projectId, call.key);
  }

  /**
   * Postgres: the guessed call's reads (record, loop history) and the policy layers in one
   * statement, and, when under the guessed policy the begin is a first execution, its claim in the
   * same statement, guarded by the database (GateStore.beginStatement): a fresh begin is one round
   * trip. A guard that fails writes nothing; the begin then plans on what the statement read.
   * `asked`: the policy already read from a source that is not the store's layers.
   */
  private async readOrClaim(
    call: PreparedCall,
    guess: PolicyLookup,
    input: ReadInput,
    startedAt: number,
    asked: PolicyLookup | null,
    mayClaim: boolean,
  ): Promise<{ claimed: BeginDecision } | { policy: PolicyLookup; reads: PlanReads }> {
    const loopOn = guess.policy.loop.enabled;
    const historyLimit = loopOn ? loopHistorySize(guess.policy.loop) : 0;
    // A claim is a loop step: only in the run's turn (run-turns.ts), or where no loop is detected.
    const claim = mayClaim || !loopOn ? this.firstExecution(call, guess, input, startedAt, asked !== null) : null;
    const read = await this.deps.store.beginStatement!({
      projectId: call.projectId,
      tool: call.tool,
      key: call.key,
      runId: call.runId,
      historyLimit,
      claim: claim && { record: claim.record, event: claim.event, argsFingerprint: call.argsFingerprint, legacyKey: call.legacyKey, policyStamp: asked ? null : guess.stamp! },
    });
    if (claim && read.claimed) return { claimed: this.deps.leased(claim.record, claim.decision) };
    const policy = asked ?? this.deps.policies.fromLayers!(call.projectId, call.tool, read.layers);
    return { policy, reads: { history: loopOn ? read.history.reverse() : null, record: alwaysExecutes(guess.policy) ? null : read.record, runAborted: read.runAborted } };
  }

  /**
   * The claim of a begin that, under `policy`, executes whatever the database holds once its
   * guards pass (no record, no loop): null when anything else could decide it — a resend, an undo, a preview, a budget, a tool that never dedupes, a policy not known to be in force.
   */
  private firstExecution(call: PreparedCall, policy: PolicyLookup, input: ReadInput, startedAt: number, inForce: boolean): { record: CallRecord; event: GateEvent; decision: BeginDecision } | null {
    const p = policy.policy;
    if (input.bypass !== undefined || input.derivedKey !== undefined || p.preview !== "none" || hasBudget(p) || alwaysExecutes(p)) return null;
    // A tool not yet known is discovered on its first begin; repeats of 1 would make any step a loop.
    if (policy.known === false || (p.loop.enabled && p.loop.repeats < 2)) return null;
    if (!inForce && policy.stamp === undefined) return null;
    // The claim is the decision's own (decide-begin.ts) on what the statement's guards ensure: no
    // record, no loop, a run not aborted.
    const now = this.deps.clock();
    const step = decideBegin({
      kind: "forward",
      policy,
      call,
      record: null,
      loop: null,
      runAborted: false,
      approvalRequest: null,
      bypass: null,
      previewToken: false,
      previewSpent: false,
      budgetRefused: null,
      latched: false,
      waitUntil: 0,
      now,
      newCallId: newId("call", now),
      newLeaseToken: (id, attempt) => this.deps.leases.issue(id, attempt),
    });
    if (step.step !== "write" || step.write.op !== "insert" || step.answer.decision !== "execute" || step.charge !== null) return null;
    return { record: step.write.record, event: lineEvent(step.line, call, policy.version, startedAt, this.deps.clock()), decision: step.answer };
  }

  /**
   * A key that is a digest of the args is keyed since #16; a record an older version stored under
   * the unkeyed key keeps deciding its calls: when nothing is stored under the keyed key, the call
   * plans on the older record, under its key. New records are only ever stored under keyed keys.
   */
  async underLegacyKey(call: PreparedCall, keyedRead: CallRecord | null): Promise<{ call: PreparedCall; record: CallRecord | null }> {
    if (keyedRead || call.legacyKey === null) return { call, record: keyedRead };
    const legacy = await this.deps.store.findRecordByKey(call.projectId, call.legacyKey);
    return legacy ? { call: { ...call, key: call.legacyKey }, record: legacy } : { call, record: null };
  }

  /**
   * What a begin plans on under `policy`: the run's loop history (oldest first; null when loops are
   * off) and the key's record (null for a tool that never dedupes), except what `held` already has.
   * Both from the database in one call, so a Postgres begin reads in one round trip.
   */
  private async beginReads(call: PreparedCall, policy: ToolPolicy, held: HeldReads = {}): Promise<PlanReads> {
    const historyNeeded = policy.loop.enabled;
    const recordNeeded = !alwaysExecutes(policy);
    const runNeeded = needsRunState(call, policy);
    const readHistory = historyNeeded && held.history === undefined;
    const readRecord = recordNeeded && held.record === undefined;
    const readRun = runNeeded && held.runAborted === undefined;
    if ((readHistory && readRecord) || readRun) {
      // No record has an empty key: a tool that never dedupes reads none.
      const read = await this.deps.store.findRecordWithHistory(call.projectId, readRecord ? call.key : "", call.runId, readHistory ? loopHistorySize(policy.loop) : 0);
      return {
        history: readHistory ? read.history.reverse() : historyNeeded ? held.history! : null,
        record: readRecord ? read.record : recordNeeded ? held.record! : null,
        runAborted: read.runAborted,
      };
    }
    const [history, record] = await Promise.all([
      readHistory ? this.readLoopHistory(call, policy.loop) : historyNeeded ? held.history! : null,
      readRecord ? this.deps.store.findRecordByKey(call.projectId, call.key) : recordNeeded ? held.record! : null,
    ]);
    return { history, record, runAborted: runNeeded ? held.runAborted! : null };
  }

  /** The loop the run's history as it is now plus this call make (null when loops are off): a step decided again in its run's turn. */
  async loopNow(call: PreparedCall, policy: EffectivePolicy): Promise<LoopMatch | null> {
    if (!policy.policy.loop.enabled) return null;
    return loopOf(call, await this.readLoopHistory(call, policy.policy.loop), policy.policy.loop);
  }

  /** The run's latest loop steps from the database (so every gate process sees them), oldest first. */
  private async readLoopHistory(call: PreparedCall, loop: LoopPolicy): Promise<CallSignature[]> {
    return (await this.deps.store.loopHistory(call.projectId, call.runId, loopHistorySize(loop))).reverse();
  }

  /** A guess that cannot even derive a key is no guess. */
  private tryPrepare(call: BeginCall, policy: EffectivePolicy, fingerprint: ArgsFingerprinter): PreparedCall | null {
    try {
      return prepareCall(call, policy.policy, fingerprint);
    } catch {
      return null;
    }
  }

  /** The call prepared under the policy in force; a key its strategy cannot derive is the caller's 400. */
  prepare(call: BeginCall, policy: EffectivePolicy, fingerprint: ArgsFingerprinter): PreparedCall {
    try {
      return prepareCall(call, policy.policy, fingerprint);
    } catch (error) {
      if (error instanceof KeyDerivationError) {
        throw new AppError("invalid_input", error.message, {
          issues: [{ path: [error.field], message: error.message, code: "missing_for_key_strategy" }],
        });
      }
      throw error;
    }
  }
}

/** The loop the run's history (oldest first) plus this call make, if any. */
function loopOf(call: PreparedCall, history: readonly CallSignature[], loop: LoopPolicy): LoopMatch | null {
  const current: CallSignature = { tool: call.tool, argsFingerprint: call.argsFingerprint };
  return detectLoop([...history, current], loop);
}
