import type { Storm } from "../contract/storms";
import { formatCount as n } from "./format-count";

type Explained = Pick<Storm, "tool" | "windowSeconds" | "baseline" | "threshold" | "rule" | "startedAt" | "openingWindowAt" | "openingHits">;

/**
 * Why the detector called it a storm, in words: the hits of the window that opened it against the
 * baseline and the threshold, and which rule applied (README "Statistics, retry storms and retention").
 */
export function explainStorm(storm: Explained): string[] {
  const straddled = storm.openingWindowAt !== storm.startedAt;
  const window = straddled
    ? `the ${storm.windowSeconds} seconds from ${storm.openingWindowAt.slice(11, 19)} UTC (a window straddling a boundary: the burst was cut in two, and neither window alone saw all of it)`
    : `one ${storm.windowSeconds}-second window`;
  const hits = `${storm.tool} had ${n(storm.openingHits)} dedup hits in ${window}`;
  if (storm.rule === "absolute") {
    return [
      `${hits}, while the gate was too new to have a baseline (${n(storm.baseline)} per window so far).`,
      `Without a baseline the absolute rule applies: at least ${n(storm.threshold)} hits (the policy's storm.absoluteMinHits) that are also at least storm.absoluteDedupRate of the window's begins.`,
    ];
  }
  const against = storm.baseline > 0 ? `${n(storm.openingHits / storm.baseline)}× its baseline of ${n(storm.baseline)}` : "against a baseline of 0";
  return [
    `${hits}, ${against} per window (the mean of the windows before it).`,
    `The threshold was ${n(storm.threshold)}: the larger of the policy's storm.minHits and storm.factor × the baseline.`,
  ];
}
