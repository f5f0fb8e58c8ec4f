import type { StormPolicy } from "./policy";

/** Windows of trailing history the baseline averages over, and how many are needed at all. */
export const BASELINE_WINDOWS = 10;
/** Windows of history the baseline needs; with fewer, the absolute rule judges. */
export const MIN_HISTORY_WINDOWS = 3;
/** Consecutive windows back under the threshold before a storm closes. */
export const QUIET_WINDOWS_TO_CLOSE = 3;

/** Which rule opened a storm: against the trailing baseline, or the absolute one while there is none. */
export type StormRule = "baseline" | "absolute";

export type StormState =
  | { open: false }
  | { open: true; openedAt: number; baseline: number; peakHits: number; quietWindows: number; rule: StormRule };

export type StormTransition = "opened" | "updated" | "closed" | null;

/** A window's dedup hits, and all its begins when known (unknown: every begin taken as a hit). */
export interface WindowCounts {
  hits: number;
  begins?: number;
}

/** The same hits over a window that straddles the boundary before the judged one, with its own history. */
export interface StraddleWindow {
  start: number;
  counts: WindowCounts;
  history: readonly number[];
}

export interface StormStep {
  state: StormState;
  transition: StormTransition;
  threshold: number;
  /** On "opened": the window that opened it (the judged one, or the straddling one) and its hits. */
  trigger?: { start: number; hits: number };
}

export interface OpeningVerdict {
  opens: boolean;
  rule: StormRule;
  baseline: number;
  threshold: number;
}

/**
 * Whether a window opens a storm. The history is every window since the project's gate first saw
 * traffic, so a tool first called a minute ago in a warm gate has a baseline (its zero windows).
 * With a baseline: hits ≥ max(minHits, factor × baseline). Without one (the gate's first few
 * windows, its very first included) an absolute rule: hits ≥ absoluteMinHits and ≥
 * absoluteDedupRate of the begins. The absolute rule applies from a project's first call (issue
 * #38): startup traffic (agents reconnecting, queued retries) stays under it by its dedup rate,
 * while a burst in the first minutes that is nearly all duplicates is a storm.
 */
export function judgeOpening(history: readonly number[], counts: WindowCounts, policy: StormPolicy): OpeningVerdict {
  const baseline = trailingMean(history);
  if (history.length < MIN_HISTORY_WINDOWS) {
    // Without the begins the rate is unknown, and an unknown rate is no evidence of a storm.
    const rateHolds = counts.begins !== undefined && counts.hits >= policy.absoluteDedupRate * counts.begins;
    return { opens: counts.hits >= policy.absoluteMinHits && rateHolds, rule: "absolute", baseline, threshold: policy.absoluteMinHits };
  }
  const threshold = Math.max(policy.minHits, policy.factor * baseline);
  return { opens: counts.hits >= threshold, rule: "baseline", baseline, threshold };
}

/**
 * One closed window of dedup hits for a tool, judged against the windows before it. A storm opens
 * by judgeOpening, on the window itself or on the window straddling its start (so a burst cut in
 * two by a boundary is still seen whole); its baseline is frozen at that moment (so the storm
 * cannot raise its own bar). It lasts while windows stay ≥ max(minHits, factor × baseline) and
 * closes after QUIET_WINDOWS_TO_CLOSE windows back under it.
 */
export function stepStorm(
  state: StormState,
  history: readonly number[],
  window: number | WindowCounts,
  windowStart: number,
  policy: StormPolicy,
  straddle?: StraddleWindow,
): StormStep {
  const counts = typeof window === "number" ? { hits: window } : window;
  const hits = counts.hits;
  if (!state.open) {
    const verdict = judgeOpening(history, counts, policy);
    const across = straddle && !verdict.opens ? judgeOpening(straddle.history, straddle.counts, policy) : null;
    const opened = verdict.opens ? { verdict, start: windowStart, hits } : across?.opens ? { verdict: across, start: straddle!.start, hits: straddle!.counts.hits } : null;
    if (opened) {
      const rule = opened.verdict.rule;
      return {
        state: { open: true, openedAt: opened.start, baseline: opened.verdict.baseline, peakHits: opened.hits, quietWindows: 0, rule },
        transition: "opened",
        threshold: opened.verdict.threshold,
        trigger: { start: opened.start, hits: opened.hits },
      };
    }
    return { state, transition: null, threshold: verdict.threshold };
  }

  const threshold = Math.max(policy.minHits, policy.factor * state.baseline);
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
export function detectStorms(series: readonly (number | WindowCounts)[], policy: StormPolicy, windowMs = policy.windowSeconds * 1000) {
  let state: StormState = { open: false };
  const hitsOf = (entry: number | WindowCounts) => (typeof entry === "number" ? entry : entry.hits);
  const transitions: { index: number; transition: Exclude<StormTransition, null> }[] = [];
  series.forEach((window, index) => {
    const step = stepStorm(state, series.slice(0, index).map(hitsOf), window, index * windowMs, policy);
    state = step.state;
    if (step.transition === "opened" || step.transition === "closed") transitions.push({ index, transition: step.transition });
  });
  return { transitions, state };
}
