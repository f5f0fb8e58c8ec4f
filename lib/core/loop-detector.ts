import type { LoopPolicy } from "./policy";
import type { BeginDecision } from "./record";

/** What identifies "the same call again" within a run: the tool and its args fingerprint. */
export interface CallSignature {
  tool: string;
  argsFingerprint: string;
}

export interface LoopMatch {
  /** The repeating cycle, oldest call first. */
  pattern: CallSignature[];
  repeats: number;
}

export type LoopSettings = Pick<LoopPolicy, "repeats" | "maxCycleLength">;

/** How many earlier steps of the run the detector needs besides the current call. */
export function loopHistorySize(settings: LoopSettings): number {
  return settings.repeats * settings.maxCycleLength - 1;
}

const same = (a: CallSignature, b: CallSignature): boolean =>
  a.tool === b.tool && a.argsFingerprint === b.argsFingerprint;

/**
 * Whether the run's most recent steps (oldest first, the current call last) end in a cycle of at
 * most `maxCycleLength` signatures repeated `repeats` times in a row. Shorter cycles are tried
 * first, so a reported cycle is never itself a repetition of a shorter one.
 */
export function detectLoop(steps: readonly CallSignature[], settings: LoopSettings): LoopMatch | null {
  for (let length = 1; length <= settings.maxCycleLength; length++) {
    const span = length * settings.repeats;
    if (steps.length < span) break;
    const tail = steps.slice(steps.length - span);
    if (tail.every((step, i) => same(step, tail[i % length]!))) {
      return { pattern: tail.slice(0, length), repeats: settings.repeats };
    }
  }
  return null;
}

/**
 * Whether a begin's ledger line must be committed with its answer for the loop detector: a step of
 * a run whose tool blocks loops can turn the run's next begin — on any gate instance — into
 * `blocked`, so it is never written behind (see store/hot/shared/ledger-write-behind.ts). Under
 * `warn` or with the detector off, a step decides nothing elsewhere and may trail its answer.
 */
export function blocksOnStep(loopStep: boolean, loop: Pick<LoopPolicy, "enabled" | "action">): boolean {
  return loopStep && loop.enabled && loop.action === "block";
}

/**
 * Which begins are steps of the agent's own reasoning. A concurrent duplicate (`in_progress`, or a
 * replay that was waiting on a live attempt) and a re-attempt of an unfinished key (attempt > 1,
 * governed by the retry advice) are not the model deciding again, so they never make a loop.
 */
export function isLoopStep(decision: BeginDecision, latched: boolean): boolean {
  switch (decision.decision) {
    case "execute":
      return decision.attempt === 1;
    case "replay":
      return !latched;
    case "refused":
    case "conflict":
    case "blocked":
      return true;
    case "in_progress":
    case "verify":
    case "approval_required":
    case "preview_required":
      return false;
  }
}
