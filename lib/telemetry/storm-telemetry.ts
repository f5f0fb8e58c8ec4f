import type { StormRow } from "../store/ports/insight-store";
import { instruments } from "./instruments";
import { withSpan } from "./spans";

export type StormTransitionType = "storm.opened" | "storm.closed";

/**
 * An incident this instance opened or closed, as telemetry: the `idemgate.storms.opened` counter
 * and an `idemgate.storm` span carrying an `idemgate.storm.opened` / `.closed` event. Only the
 * instance whose write won reports it, so a storm is counted once however many instances watch.
 */
export async function recordStormTransition(type: StormTransitionType, storm: StormRow): Promise<void> {
  const attributes = {
    "gen_ai.tool.name": storm.tool,
    "idemgate.project_id": storm.projectId,
    "idemgate.storm.id": storm.id,
    "idemgate.storm.window_seconds": storm.windowSeconds,
    "idemgate.storm.baseline": storm.baseline,
    "idemgate.storm.threshold": storm.threshold,
    "idemgate.storm.peak_hits": storm.peakHits,
    "idemgate.storm.total_hits": storm.totalHits,
    "idemgate.storm.runs_involved": storm.runsInvolved,
  };
  if (type === "storm.opened") instruments().stormsOpened.add(1, { tool: storm.tool });
  await withSpan("idemgate.storm", attributes, async (span) => {
    span.addEvent(type === "storm.opened" ? "idemgate.storm.opened" : "idemgate.storm.closed", attributes);
  });
}
