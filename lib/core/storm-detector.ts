import type { StormPolicy } from "./policy";

/** Windows of trailing history the baseline averages over, and how many are needed at all. */
export const BASELINE_WINDOWS = 10;
export const MIN_HISTORY_WINDOWS = 3;
/** Consecutive windows back under the threshold before a storm closes. */
export const QUIET_WINDOWS_TO_CLOSE = 3;

export type StormState =
  | { open: false }
  | { open: true; openedAt: number; baseline: number; peakHits: number; quietWindows: number };

export type StormTransition = "opened" | "updated" | "closed" | null;

export interface StormStep {
  state: StormState;
  transition: StormTransition;
  threshold: number;
}

/**
 * One closed window of dedup hits for a tool, judged against the windows before it. A storm opens
 * when hits ≥ max(minHits, factor × baseline), where the baseline is the trailing mean frozen at
 * the moment the storm opened (so the storm cannot raise its own bar), and closes after
 * QUIET_WINDOWS_TO_CLOSE windows back under it. With too little history nothing opens: a gate
 * that starts during heavy traffic must not call its first minute a storm.
 */
export function stepStorm(
  state: StormState,
  history: readonly number[],
  hits: number,
  windowStart: number,
  policy: StormPolicy,
): StormStep {
  const baseline = state.open ? state.baseline : trailingMean(history);
  const threshold = Math.max(policy.minHits, policy.factor * baseline);

  if (!state.open) {
    const enoughHistory = history.length >= MIN_HISTORY_WINDOWS;
    if (enoughHistory && hits >= threshold) {
      return {
        state: { open: true, openedAt: windowStart, baseline, peakHits: hits, quietWindows: 0 },
        transition: "opened",
        threshold,
      };
    }
    return { state, transition: null, threshold };
  }

  if (hits >= threshold) {
    return {
      state: { ...state, peakHits: Math.max(state.peakHits, hits), quietWindows: 0 },
      transition: "updated",
      threshold,
    };
  }
  const quietWindows = state.quietWindows + 1;
  if (quietWindows >= QUIET_WINDOWS_TO_CLOSE) return { state: { open: false }, transition: "closed", threshold };
  return { state: { ...state, quietWindows }, transition: "updated", threshold };
}

function trailingMean(history: readonly number[]): number {
  const recent = history.slice(-BASELINE_WINDOWS);
  return recent.length === 0 ? 0 : recent.reduce((sum, value) => sum + value, 0) / recent.length;
}

/** Replays a whole series through the detector: what the tests and the simulator use. */
export function detectStorms(series: readonly number[], policy: StormPolicy, windowMs = policy.windowSeconds * 1000) {
  let state: StormState = { open: false };
  const transitions: { index: number; transition: Exclude<StormTransition, null> }[] = [];
  series.forEach((hits, index) => {
    const step = stepStorm(state, series.slice(0, index), hits, index * windowMs, policy);
    state = step.state;
    if (step.transition === "opened" || step.transition === "closed") transitions.push({ index, transition: step.transition });
  });
  return { transitions, state };
}
