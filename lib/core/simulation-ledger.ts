import type { CallSignature } from "./loop-detector";
import type { BeginDecisionName } from "./record";

/**
 * The ledger of one tool as the policy simulator replays it, oldest first: every begin with what
 * was decided, and every event that changed a record between begins (outcomes, heartbeats,
 * evictions, and the loop steps the run took in other tools). Replaying the decisions needs the
 * timing of each attempt, not only how its record ended: a duplicate that arrived while the
 * first attempt ran was `in_progress`, whatever the record says today.
 */
export type LedgerEntry = PastBegin | PastOutcome | PastHeartbeat | PastEviction | ForeignStep;

/** What a key derivation under another policy needs; `undefined` = history does not keep it. */
export interface CallIdentity {
  stepId: string | null | undefined;
  scope: string | null | undefined;
  /** The unredacted arguments, known only when they re-fingerprint to what was recorded. */
  args: unknown;
  argsKnown: boolean;
}

export interface PastBegin {
  type: "begin";
  at: number;
  projectId: string;
  tool: string;
  runId: string;
  agentId: string | null;
  toolCallId: string | null;
  /** The key (generation 1) and args fingerprint it was decided under, by the policy in force. */
  key: string;
  argsFingerprint: string;
  identity: CallIdentity;
  decision: BeginDecisionName;
  /** The record it was decided about (null for a blocked begin), and that record's attempt then. */
  callId: string | null;
  attempt: number;
  /** It waited on a live attempt (waitMs) and got that attempt's outcome. */
  latched: boolean;
  loopWarned: boolean;
  /**
   * A resend: `token` ran under an approved request's token, `allow` under `bypass: allow`, `ask`
   * asked for one (answered approval_required).
   */
  bypass: "token" | "allow" | "ask" | null;
  /** Part of the sample the tallies cover; earlier begins only set up the state. */
  counted: boolean;
  /** The policy revision it was decided under (undefined: not known). */
  revision?: number;
  /** Shadow mode: what enforce would have answered (the recorded decision is then `execute`). */
  shadowed?: BeginDecisionName | null;
}

/** How an attempt ended: a complete, or an operator's resolve (`resolved`: cached whatever the policy). */
export interface PastOutcome {
  type: "outcome";
  at: number;
  callId: string;
  attempt: number;
  state: "succeeded" | "failed" | "released";
  resolved: boolean;
  /** Budgets: what the complete reported it cost (null: nothing, or an operator's resolve). */
  cost?: { amount: number; currency: string } | null;
}

export interface PastHeartbeat {
  type: "heartbeat";
  at: number;
  callId: string;
  attempt: number;
  /** What the agent asked to extend by; null: the policy's lease (or an event from before heartbeats recorded it). */
  extendSeconds: number | null;
}

/** An operator evicted the record: the next begin executes afresh. */
export interface PastEviction {
  type: "evict";
  at: number;
  callId: string;
}

/** A step of the run's reasoning in another tool (or before the sample): part of its loop history. */
export interface ForeignStep {
  type: "step";
  runId: string;
  signature: CallSignature;
}
