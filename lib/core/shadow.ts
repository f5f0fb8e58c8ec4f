import type { BeginDecision } from "./record";

/**
 * Shadow mode: the decisions the gate would have given instead of `execute` that would have kept a
 * duplicate from running (a replay, a wait on the live attempt, a refusal, a conflict). The
 * overview's and tools page's "would have prevented N duplicate executions" counts these.
 */
export const SHADOW_PREVENTED = ["would_replay", "would_wait", "would_refuse", "would_conflict"] as const;

/** `'would_replay', 'would_wait', …` for an SQL IN list (constants, never user input). */
export const SHADOW_PREVENTED_SQL = SHADOW_PREVENTED.map((name) => `'${name}'`).join(", ");

/** What the ledger calls a decision the gate did not give in shadow mode. */
const SHADOW_NAMES: Record<BeginDecision["decision"], string> = {
  execute: "would_execute",
  replay: "would_replay",
  in_progress: "would_wait",
  verify: "would_verify",
  refused: "would_refuse",
  conflict: "would_conflict",
  approval_required: "would_require_approval",
  preview_required: "would_require_preview",
  blocked: "would_block",
};

export function shadowName(would: BeginDecision): string {
  return SHADOW_NAMES[would.decision];
}

/** The parts of a shadowed decision an operator needs: which record it would have replayed, why it would have blocked. */
export function shadowDetail(would: BeginDecision): Record<string, unknown> {
  switch (would.decision) {
    case "refused":
      return { shadow: "reason" in would ? { decision: "refused", reason: would.reason } : { decision: "refused", callId: would.callId } };
    case "replay":
    case "conflict":
    case "in_progress":
    case "verify":
      return { shadow: { decision: would.decision, callId: would.callId } };
    case "blocked":
      return { shadow: { decision: "blocked", reason: would.reason, ...(would.reason === "budget_exceeded" ? { budget: would.budget } : { pattern: would.pattern, repeats: would.repeats }) } };
    default:
      return { shadow: { decision: would.decision } };
  }
}
