import { BASELINE_WINDOWS } from "./storm-detector";

/**
 * Window arithmetic for running the storm detector against the ledger. Windows are aligned to the
 * epoch (window n covers [n·w, (n+1)·w)), so every gate instance cuts time the same way and two
 * detectors judging "the same window" really judge the same events.
 */

/** A detector that fell behind (restart, long pause) judges at most this many missed windows. */
export const MAX_CATCH_UP_WINDOWS = BASELINE_WINDOWS;

/** Events carry the decision's time and commit a moment later: a window is judged only after this grace. */
export function closeGraceMs(windowMs: number): number {
  return Math.min(2_000, Math.floor(windowMs / 4));
}

/** The latest window whose end (plus the grace) has passed. */
export function lastClosedWindow(now: number, windowMs: number): number {
  return Math.floor((now - closeGraceMs(windowMs)) / windowMs) - 1;
}

/**
 * The windows still to judge, oldest first: those after `judgedThrough` (the last window judged
 * for this tool, null when unknown) up to `lastClosed`, at most MAX_CATCH_UP_WINDOWS of them.
 * Unknown means "judge only the latest": a fresh detector does not replay history.
 */
export function windowsToJudge(lastClosed: number, judgedThrough: number | null): number[] {
  const first = Math.max(judgedThrough === null ? lastClosed : judgedThrough + 1, lastClosed - MAX_CATCH_UP_WINDOWS + 1);
  const windows: number[] = [];
  for (let window = first; window <= lastClosed; window++) windows.push(window);
  return windows;
}

/**
 * The hits of the BASELINE_WINDOWS windows before `window`, oldest first, leaving out windows
 * before `firstWindow` (the first whole window after the tool was first seen): the detector must
 * know how much history it really has, and a window without events counts as zero hits.
 */
export function historyBefore(hitsByWindow: ReadonlyMap<number, number>, window: number, firstWindow: number): number[] {
  const history: number[] = [];
  for (let w = Math.max(window - BASELINE_WINDOWS, firstWindow); w < window; w++) history.push(hitsByWindow.get(w) ?? 0);
  return history;
}

/** The first window that lies wholly after a tool's first sighting. */
export function firstWholeWindow(firstSeenAt: number, windowMs: number): number {
  return Math.ceil(firstSeenAt / windowMs);
}
