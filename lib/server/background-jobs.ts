import { failureBackoffMs } from "../core/failure-backoff";
import { env } from "../env";
import { observeLiveLeases } from "../telemetry/instruments";
import { services } from "./composition-root";
import { processSlot } from "../process-wide";

/** Batches per table a background collection may delete before it yields to the next interval. */
const COLLECTOR_MAX_BATCHES = 50;

interface Loop {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
}

/** The longest wait between passes of a loop that keeps failing (its store gone, say). */
const MAX_FAILURE_BACKOFF_MS = 60_000;

/** What each loop did, per process: for diagnostics and for tests that watch a loop back off. */
export interface LoopStats {
  passes: number;
  failures: number;
  failuresInRow: number;
  /** The wait before the next pass, as the last pass chose it. */
  nextMs: number;
}

const started = processSlot<boolean>("backgroundJobsStarted");
const allLoopStats = processSlot<Record<string, LoopStats>>("loopStats");

/** Every loop's stats in this process, by name. */
export function loopStats(): Record<string, LoopStats> {
  return allLoopStats.getOrCreate(() => ({}));
}

/**
 * Runs `run` every `intervalMs`, measured from the end of the previous run, so a slow pass never
 * overlaps the next. The timer is unref'd (it never keeps the process alive) and a failure is
 * logged and retried: background work must never take the server down. Failures in a row back off
 * (doubling, jittered, up to a minute), so a database that vanished (its file deleted, the Postgres
 * database dropped) costs a pass now and then, not a loop that retries as fast as it can.
 */
function startLoop({ name, intervalMs, run }: Loop): void {
  const stats: LoopStats = (loopStats()[name] = { passes: 0, failures: 0, failuresInRow: 0, nextMs: intervalMs });
  const schedule = (delayMs: number) => {
    const timer = setTimeout(async () => {
      stats.passes++;
      try {
        await run();
        stats.failuresInRow = 0;
      } catch (error) {
        stats.failures++;
        stats.failuresInRow++;
        const next = failureBackoffMs(intervalMs, stats.failuresInRow, MAX_FAILURE_BACKOFF_MS);
        console.warn(`[idemgate] ${name} failed (${stats.failuresInRow} in a row; next try in ${next} ms): ${error instanceof Error ? error.message : String(error)}`);
        stats.nextMs = next;
        return schedule(next);
      }
      stats.nextMs = intervalMs;
      schedule(intervalMs);
    }, delayMs);
    timer.unref();
  };
  schedule(intervalMs);
}

/** Started once per server process from boot(): the collector, the storm detector and the alert delivery worker. */
export function startBackgroundJobs(): void {
  if (started.get()) return;
  started.set(true);
  const config = env();
  observeLiveLeases(() => services().insights.store.liveLeases(Date.now()));
  if (config.IDEMGATE_COLLECTOR_INTERVAL_MS > 0) {
    startLoop({
      name: "collector",
      intervalMs: config.IDEMGATE_COLLECTOR_INTERVAL_MS,
      run: async () => {
        const report = await services().insights.collector.collect({ maxBatches: COLLECTOR_MAX_BATCHES });
        if (report.records + report.events + report.rollups + report.storms === 0) return;
        const rest = report.more ? " (more next time)" : "";
        console.log(`[idemgate] collector purged ${report.records} records, ${report.events} events, ${report.rollups} rollups, ${report.storms} storms in ${report.ms} ms${rest}`);
      },
    });
  }
  if (config.IDEMGATE_COLLECTOR_INTERVAL_MS > 0) {
    startLoop({
      name: "MCP session purge",
      intervalMs: config.IDEMGATE_COLLECTOR_INTERVAL_MS,
      // Loaded on first run, so a server that never serves MCP does not load the MCP SDK at boot.
      run: () => services().mcp.sessions.purgeExpired(),
    });
  }
  if (config.IDEMGATE_STORM_INTERVAL_MS > 0) {
    startLoop({ name: "storm detector", intervalMs: config.IDEMGATE_STORM_INTERVAL_MS, run: () => services().insights.storms.tick() });
  }
  if (config.IDEMGATE_ALERT_INTERVAL_MS > 0) {
    startLoop({ name: "alert delivery", intervalMs: config.IDEMGATE_ALERT_INTERVAL_MS, run: () => services().alerts.dispatcher.tick() });
  }
}
