import { baseKeyOf, generationKey } from "../../core/generations";
import type { EffectivePolicy } from "../../core/policy";
import type { PreparedCall } from "../../core/prepare-call";
import type { BeginDecision, CallRecord } from "../../core/record";
import type { GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import { recordEvent } from "../gate/gate-events";
import type { BypassAsk, BypassGate } from "./resend-bypass";

/** Where a begin's key lives now: the record of its newest generation. */
export interface KeyRoute {
  /** The call to plan: its key is the newest generation's (`key` or `key:g<n>`). */
  call: PreparedCall;
  record: CallRecord | null;
  generation: number;
  /** The generation-1 record, which holds the key's newest generation. */
  base: CallRecord | null;
  /** Set when this begin raised the generation with an approved resend request. */
  requestId: string | null;
  /** This begin raised the generation (a token, or `bypass: allow`): it is a resend. */
  raised: boolean;
}

/** A bypass ask answered without planning (approval_required), with the record its event is about. */
export interface BypassAnswer {
  decision: BeginDecision;
  record: CallRecord;
}

const MAX_RAISE_RACES = 8;

/**
 * Key generations on top of the store (lib/core/generations.ts). A begin reads the generation-1
 * record anyway; only when it says a resend raised the generation does it cost one more read.
 * Raising is a compare-and-set on that record, so two approved resends of one key take
 * generations n+1 and n+2, and the unique (project, key) index still lets one attempt per
 * generation execute.
 */
export class KeyRouter {
  constructor(
    private readonly store: GateStore,
    private readonly bypass: BypassGate | null,
  ) {}

  async follow(call: PreparedCall, base?: CallRecord | null): Promise<KeyRoute> {
    const first = base === undefined ? await this.store.findRecordByKey(call.projectId, call.key) : base;
    if (!first || first.generation <= 1) return { call, record: first, generation: 1, base: first, requestId: null, raised: false };
    return this.at(call, first, first.generation, null, false);
  }

  /** Re-reads after a lost race, keeping what this begin already did (a raised generation's request). */
  async refresh(route: KeyRoute): Promise<KeyRoute> {
    const call = { ...route.call, key: baseKeyOf(route.call.key) };
    return { ...(await this.follow(call)), requestId: route.requestId, raised: route.raised };
  }

  /** Follows the key, then answers the begin's bypass ask: approval_required, or a raised generation. */
  async route(call: PreparedCall, policy: EffectivePolicy, base: CallRecord | null, ask: BypassAsk | undefined, now: number): Promise<KeyRoute | BypassAnswer> {
    const route = await this.follow(call, base);
    if (!ask) return route;
    if (!this.bypass) throw new AppError("bypass_forbidden", "resends are not enabled on this gate");
    const verdict = await this.bypass.authorize({ projectId: call.projectId, call, policy: policy.policy, current: route.record, ask, now });
    switch (verdict.kind) {
      case "plan":
        return route;
      case "approval_required":
        return { decision: { decision: "approval_required", requestId: verdict.requestId }, record: route.record! };
      case "advance":
        return this.raise(call, route.base!, policy, verdict.requestId, now);
    }
  }

  /** After the plan applied: tell the bypass gate which call ran under the raised generation. */
  claimed(route: KeyRoute, decision: BeginDecision): void {
    if (!route.requestId || !this.bypass || decision.decision !== "execute") return;
    // Informational only (the token is already consumed and audited): never fail the begin over it.
    this.bypass.claimed(route.call.projectId, route.requestId, decision.callId).catch(() => undefined);
  }

  private async raise(call: PreparedCall, base: CallRecord, policy: EffectivePolicy, requestId: string | null, now: number): Promise<KeyRoute> {
    let current = base;
    for (let races = 0; races < MAX_RAISE_RACES; races++) {
      const generation = current.generation + 1;
      const raised: CallRecord = {
        ...current,
        generation,
        version: current.version + 1,
        updatedAt: now,
        // The base record routes every begin of the key: it must outlive the generation it points to.
        expiresAt: Math.max(current.expiresAt, now + policy.policy.ttlSeconds * 1000),
      };
      const event = recordEvent(raised, {
        type: "resend",
        decision: "generation_raised",
        startedAt: performance.now(),
        at: now,
        policyVersion: policy.version,
        detail: { generation, requestId },
      });
      if (await this.store.updateRecord(raised, current.version, event)) return this.at(call, raised, generation, requestId, true);
      const reread = await this.store.findRecordByKey(call.projectId, call.key);
      if (!reread) throw new AppError("contention", "the call's record vanished while raising its generation; retry", { retryAfterSeconds: 1 });
      current = reread;
    }
    throw new AppError("contention", "the key's generation is changing too fast; retry the same request", { retryAfterSeconds: 1 });
  }

  private async at(call: PreparedCall, base: CallRecord, generation: number, requestId: string | null, raised: boolean): Promise<KeyRoute> {
    const key = generationKey(call.key, generation);
    const record = await this.store.findRecordByKey(call.projectId, key);
    return { call: { ...call, key }, record, generation, base, requestId, raised };
  }
}
