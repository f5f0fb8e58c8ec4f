import { env } from "../env";
import { observeLiveLeases } from "../telemetry/instruments";
import { services } from "./composition-root";

/** Batches per table a background collection may delete before it yields to the next interval. */
const COLLECTOR_MAX_BATCHES = 50;

interface Loop {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
}

const holder = globalThis as unknown as { __idemgateJobs?: boolean };

/**
 * Runs `run` every `intervalMs`, measured from the end of the previous run, so a slow pass never
 * overlaps the next. The timer is unref'd (it never keeps the process alive) and a failure is
 * logged and retried next time: background work must never take the server down.
 */
function startLoop({ name, intervalMs, run }: Loop): void {
  const schedule = () => {
    const timer = setTimeout(async () => {
      try {
        await run();
      } catch (error) {
        console.warn(`[idemgate] ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      schedule();
    }, intervalMs);
    timer.unref();
  };
  schedule();
}

/** Started once per server process from boot(): the collector, the storm detector and the alert delivery worker. */
export function startBackgroundJobs(): void {
  if (holder.__idemgateJobs) return;
  holder.__idemgateJobs = true;
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
