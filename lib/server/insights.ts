import { toWireStorm } from "../contract/storms";
import { env } from "../env";
import { openInsightStore } from "../store/sql/open-insight-store";
import type { InsightStore } from "../store/ports/insight-store";
import { recordStormTransition } from "../telemetry/storm-telemetry";
import { Collector } from "./collector";
import { getGate } from "./gate";
import { pgTimeoutsFrom } from "./pg-timeouts";
import { StorePolicySource } from "./policy-source";
import { StatsService } from "./stats-service";
import { type StormNotice, StormMonitor } from "./storm-monitor";
import { StormWebhook } from "./storm-webhook";

export interface Insights {
  store: InsightStore;
  stats: StatsService;
  collector: Collector;
  storms: StormMonitor;
}

const holder = globalThis as unknown as { __idemgateInsights?: Insights };

/** Retention, storms and statistics: one insight store (its own connection or pool) per server process. */
export function getInsights(): Insights {
  if (!holder.__idemgateInsights) {
    const config = env();
    const gate = getGate();
    const store = openInsightStore({
      databaseUrl: config.DATABASE_URL,
      sqliteSynchronous: config.IDEMGATE_SQLITE_SYNCHRONOUS,
      sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS,
      pgTimeouts: pgTimeoutsFrom(config, "background"),
    });
    const webhook = config.IDEMGATE_STORM_WEBHOOK_URL
      ? new StormWebhook(config.IDEMGATE_STORM_WEBHOOK_URL, { timeoutMs: config.IDEMGATE_STORM_WEBHOOK_TIMEOUT_MS })
      : null;
    const announce = ({ type, storm }: StormNotice) => {
      console.log(`[idemgate] ${type} ${storm.projectId}/${storm.tool}: ${storm.peakHits} dedup hits in ${storm.windowSeconds} s (baseline ${storm.baseline.toFixed(1)})`);
      recordStormTransition(type, storm).catch(() => undefined);
      webhook?.send(type, toWireStorm(storm));
    };
    holder.__idemgateInsights = {
      store,
      stats: new StatsService(store, gate.store),
      collector: new Collector(store, {
        eventRetentionDays: config.IDEMGATE_EVENT_RETENTION_DAYS,
        rollupRetentionDays: config.IDEMGATE_ROLLUP_RETENTION_DAYS,
      }),
      storms: new StormMonitor({ store, policies: new StorePolicySource(gate.store), tools: gate.store, onTransition: announce }),
    };
  }
  return holder.__idemgateInsights;
}
