import type { PreparedCall } from "../core/prepare-call";
import type { BeginDecision, LoopWarning } from "../core/record";
import type { EffectivePolicy } from "../core/policy";
import { isLoopStep } from "../core/loop-detector";
import type { EventFields } from "./gate-events";

/** What every event of one begin shares. */
export interface BeginContext {
  call: PreparedCall;
  policy: EffectivePolicy;
  startedAt: number;
  /** The begin waited on a live attempt: its outcome is a concurrent duplicate's, not a new step. */
  latched: boolean;
  warning: LoopWarning | undefined;
  /** The begin carried a resend's token, or asked for one: kept on its event for the policy simulator. */
  bypass: "token" | "ask" | null;
}

/** The fields of a begin's ledger line, decided at `at`. `resent`: the same tool-call id again, a transport retry (never a loop step). */
export function beginFields(ctx: BeginContext, decision: BeginDecision, at: number, detail?: Record<string, unknown>, resent = false): EventFields {
  return {
    type: "begin",
    decision: decision.decision,
    startedAt: ctx.startedAt,
    at,
    policyVersion: ctx.policy.version,
    loopStep: isLoopStep(decision, ctx.latched || resent),
    detail: withBypass(detail ?? (ctx.warning ? { loopWarning: ctx.warning } : null), ctx.bypass),
  };
}

function withBypass(detail: Record<string, unknown> | null, bypass: BeginContext["bypass"]): Record<string, unknown> | null {
  return bypass === null ? detail : { ...detail, bypass };
}
