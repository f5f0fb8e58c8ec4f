import { benchApp } from "../setup/bench-app";
import { CLIENTS, type Subject, type Workload } from "./types";

const HOUR = 3_600_000;

export const STATS_QUERIES = ["dedup-24h", "series-hour-24h", "series-minute-2h", "top-runs-1h"] as const;

export interface StatsOptions {
  id: string;
  label: string;
  databaseUrl: string;
  projectId: string;
  /** The end of the seeded 24 hours. */
  now: number;
  ops: number;
}

/**
 * The dashboard's statistics (StatsService, what the stats routes call) over a seeded ledger:
 * figures per tool over 24 h, the hourly and per-minute series, and the top runs of the last hour.
 */
export function statsSubject(options: StatsOptions): Subject {
  const app = benchApp(options.databaseUrl);
  const { stats } = app.insights;
  const { projectId, now } = options;
  const day = { from: now - 24 * HOUR, to: now };
  const query = (name: (typeof STATS_QUERIES)[number], run: () => Promise<unknown>): Workload => ({
    name,
    unit: "queries",
    clients: [...CLIENTS.single],
    ops: options.ops,
    op: async () => {
      await run();
    },
  });
  return {
    id: options.id,
    group: "stats",
    label: options.label,
    workloads: [
      query("dedup-24h", async () => {
        const result = await stats.dedup(projectId, day);
        if (result.tools.length === 0) throw new Error("stats: no tools in the dedup figures");
      }),
      query("series-hour-24h", () => stats.timeseries(projectId, day, "hour", null)),
      query("series-minute-2h", () => stats.timeseries(projectId, { from: now - 2 * HOUR, to: now }, "minute", "tool_7")),
      query("top-runs-1h", () => stats.topRuns(projectId, { from: now - HOUR, to: now }, 5)),
    ],
    close: () => app.close(),
  };
}
