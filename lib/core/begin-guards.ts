/**
 * Kinds of call and which of the begin's guards apply to each (DESIGN.md "Kinds of call"). The
 * begin's decision (decide-begin.ts) asks this table, never the kind itself, so a new guard is one
 * clause plus one row here.
 */
export type CallKind =
  /** An agent's step. */
  | "forward"
  /** A saga's compensation under `<key>:compensate`: gated once, never stopped by forward work's guards. */
  | "undo"
  /** An operator-approved bypass that raised the key's generation: the approval stands in for a preview. */
  | "resend"
  /** A forward step that redeems a preview token. */
  | "preview"
  /** A tool under `effect: read`: recorded, never deduped, never a loop step. */
  | "read";

export const CALL_KINDS: readonly CallKind[] = ["forward", "undo", "resend", "preview", "read"];

/** The guards in the order the decision applies them. */
export type Guard =
  /** The run was aborted (compensating or done compensating): no new forward work. */
  | "run_aborted"
  /** One record per key: replay, wait, refuse, conflict, verify. */
  | "dedupe"
  /** The run repeats a cycle of calls: the step may be blocked (or flagged under `warn`). */
  | "loop"
  /** A tool under `preview: required|approve` first runs on a preview's token. */
  | "preview"
  /** The run's budget: a new execution is charged and refused past the limit. */
  | "budget";

export const GUARD_ORDER: readonly Guard[] = ["run_aborted", "dedupe", "loop", "preview", "budget"];

/**
 * Which guards apply to which kind. `loop` here means "may be blocked, and counts as a loop step";
 * a resend is still flagged with the loop it is part of, never blocked by it.
 */
export const GUARD_TABLE: Readonly<Record<Guard, Readonly<Record<CallKind, boolean>>>> = {
  run_aborted: { forward: true, undo: false, resend: false, preview: true, read: false },
  dedupe: { forward: true, undo: true, resend: true, preview: true, read: false },
  loop: { forward: true, undo: false, resend: false, preview: true, read: false },
  preview: { forward: true, undo: false, resend: false, preview: true, read: true },
  budget: { forward: true, undo: false, resend: true, preview: true, read: true },
};

export function applies(guard: Guard, kind: CallKind): boolean {
  return GUARD_TABLE[guard][kind];
}

/** What the kind of a begin is decided from. `resent`: the begin's bypass raised the key's generation. */
export interface KindSignals {
  effect: "read" | "write" | "async";
  /** A compensation's key (`<key>:compensate`), derived by the gate itself. */
  undo: boolean;
  resent: boolean;
  previewToken: boolean;
}

/** Undo first (a compensation of a read tool is still an undo), then read, resend, preview. */
export function kindOf(signals: KindSignals): CallKind {
  if (signals.undo) return "undo";
  if (signals.effect === "read") return "read";
  if (signals.resent) return "resend";
  if (signals.previewToken) return "preview";
  return "forward";
}
