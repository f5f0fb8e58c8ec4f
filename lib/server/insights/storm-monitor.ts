import { mergeHits } from "../../core/hit-counts";
import type { EffectivePolicy } from "../../core/policy";
import { BASELINE_WINDOWS, QUIET_WINDOWS_TO_CLOSE, type StormState, type StormStep, stepStorm } from "../../core/storm-detector";
import { firstWholeWindow, historyBefore, lastClosedWindow, windowsToJudge } from "../../core/storm-windows";
import type { HitCount, InsightStore, StormRow, WindowCounts } from "../../store/ports/insight-store";
import type { PolicyHistory } from "../../store/ports/policy-store";
import type { StormTransitionType } from "../../telemetry/storm-telemetry";
import { newId } from "../ids";
import type { PolicySource } from "../policies/policy-source";

/** Dedup hits read per storm window to find its heaviest keys and runs. */
const DRIVER_SCAN_LIMIT = 50_000;
const TOP_KEYS = 10;
/** Runs kept per storm to count the runs involved (exact up to this many). */
const RUN_SAMPLE = 500;
const MINUTE_MS = 60_000;

export interface StormNotice {
  type: StormTransitionType;
  storm: StormRow;
}

export interface StormMonitorDeps {
  store: InsightStore;
  policies: PolicySource;
  /** The project's tools and when each was first seen. */
  tools: Pick<PolicyHistory, "listPolicies">;
  clock?: () => number;
  /** Told of each incident this instance opened or closed (telemetry, webhook): never awaited. */
  onTransition?: (notice: StormNotice) => void;
}

/** One tool's work in a pass. */
interface ToolPlan {
  tool: string;
  policy: EffectivePolicy;
  open: StormRow | null;
  windowMs: number;
  windows: number[];
  firstWindow: number;
}

/**
 * Runs the pure storm detector (stepStorm) over the ledger for every tool, on every gate
 * instance. The database keeps the one truth: at most one open incident per (project, tool) by
 * a unique index, and each window of an open incident is applied by a compare-and-set on the last
 * window judged, so instances racing over the same window change nothing twice and only the
 * winner reports a transition. Hits come from the minute rollups when windows are whole minutes
 * (the default), else from one grouped range scan of the events' (project_id, at) index.
 */
export class StormMonitor {
  private readonly clock: () => number;
  /** Windows this process judged with no incident open, so the next pass does not judge them again. */
  private readonly judged = new Map<string, { windowMs: number; window: number }>();

  constructor(private readonly deps: StormMonitorDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** One pass over every project. */
  async tick(): Promise<StormNotice[]> {
    const notices: StormNotice[] = [];
    for (const projectId of await this.deps.store.listProjectIds()) notices.push(...(await this.evaluateProject(projectId)));
    return notices;
  }

  async evaluateProject(projectId: string): Promise<StormNotice[]> {
    const now = this.clock();
    const { store } = this.deps;
    const [layers, open, watermarks] = await Promise.all([
      this.deps.tools.listPolicies(projectId),
      store.openStorms(projectId),
      store.stormWatermarks(projectId),
    ]);
    const openByTool = new Map(open.map((storm) => [storm.tool, storm]));
    const firstSeen = new Map<string, number>();
    for (const layer of layers) if (layer.tool !== "*" && layer.firstSeenAt !== null) firstSeen.set(layer.tool, layer.firstSeenAt);
    for (const storm of open) if (!firstSeen.has(storm.tool)) firstSeen.set(storm.tool, 0);
    // History starts when the project's gate first saw traffic, not when each tool did: a tool
    // first called a minute ago in a gate up for an hour has a baseline of zero windows.
    const gateSeenAt = Math.min(...firstSeen.values());

    const plans: ToolPlan[] = [];
    for (const tool of firstSeen.keys()) {
      const policy = await this.deps.policies.forTool(projectId, tool);
      const openStorm = openByTool.get(tool) ?? null;
      // An open incident keeps the window it opened with, so its windows stay comparable.
      const windowMs = (openStorm?.windowSeconds ?? policy.policy.storm.windowSeconds) * 1000;
      const judgedThrough = openStorm ? Math.floor(openStorm.lastWindowAt / windowMs) : this.judgedThrough(projectId, tool, windowMs, watermarks.get(tool));
      const windows = windowsToJudge(lastClosedWindow(now, windowMs), judgedThrough);
      if (windows.length > 0) plans.push({ tool, policy, open: openStorm, windowMs, windows, firstWindow: firstWholeWindow(gateSeenAt, windowMs) });
    }

    const notices: StormNotice[] = [];
    for (const [windowMs, group] of groupBy(plans, (plan) => plan.windowMs)) {
      // One window more than the baseline: the straddling window's history ends a window earlier.
      const first = Math.min(...group.map((plan) => plan.windows[0]!)) - BASELINE_WINDOWS - 1;
      const last = Math.max(...group.map((plan) => plan.windows[plan.windows.length - 1]!));
      const read = windowMs % MINUTE_MS === 0 ? store.dedupHitsFromRollups.bind(store) : store.dedupHitsFromEvents.bind(store);
      const firstJudged = Math.min(...group.map((plan) => plan.windows[0]!));
      const [rows, halfRows] = await Promise.all([
        read(projectId, windowMs, first * windowMs, (last + 1) * windowMs),
        // Half windows of the judged span and the one before: begins for the absolute rule, and
        // the windows that straddle each boundary.
        store.windowCounts(projectId, windowMs / 2, (firstJudged - 1) * windowMs, (last + 1) * windowMs),
      ]);
      const hits = new Map<string, Map<number, number>>();
      for (const row of rows) {
        if (!hits.has(row.tool)) hits.set(row.tool, new Map());
        hits.get(row.tool)!.set(row.window, row.hits);
      }
      const halves = new Map<string, Map<number, WindowCounts>>();
      for (const row of halfRows) {
        if (!halves.has(row.tool)) halves.set(row.tool, new Map());
        halves.get(row.tool)!.set(row.window, row);
      }
      for (const plan of group) {
        notices.push(...(await this.judge(projectId, plan, hits.get(plan.tool) ?? new Map(), halves.get(plan.tool) ?? new Map(), now)));
      }
    }
    return notices;
  }

  private judgedThrough(projectId: string, tool: string, windowMs: number, watermark: number | undefined): number | null {
    const memo = this.judged.get(`${projectId}\u0000${tool}`);
    const fromMemo = memo && memo.windowMs === windowMs ? memo.window : null;
    const fromStorms = watermark === undefined ? null : Math.floor(watermark / windowMs);
    if (fromMemo === null) return fromStorms;
    return fromStorms === null ? fromMemo : Math.max(fromMemo, fromStorms);
  }

  /** Steps the detector through the tool's windows, writing each transition; stops where another instance got first. */
  private async judge(projectId: string, plan: ToolPlan, hits: ReadonlyMap<number, number>, halves: ReadonlyMap<number, WindowCounts>, now: number): Promise<StormNotice[]> {
    const notices: StormNotice[] = [];
    let current = plan.open;
    let state: StormState = current
      ? { open: true, openedAt: current.startedAt, baseline: current.baseline, peakHits: current.peakHits, quietWindows: current.quietWindows, rule: current.rule }
      : { open: false };
    const half = (index: number) => halves.get(index) ?? { hits: 0, begins: 0 };
    for (const window of plan.windows) {
      const windowStart = window * plan.windowMs;
      const windowHits = hits.get(window) ?? 0;
      const counts = { hits: windowHits, begins: Math.max(windowHits, half(2 * window).begins + half(2 * window + 1).begins) };
      const straddle =
        window - 1 >= plan.firstWindow
          ? {
              start: windowStart - plan.windowMs / 2,
              counts: { hits: half(2 * window - 1).hits + half(2 * window).hits, begins: half(2 * window - 1).begins + half(2 * window).begins },
              history: historyBefore(hits, window - 1, plan.firstWindow),
            }
          : undefined;
      const step = stepStorm(state, historyBefore(hits, window, plan.firstWindow), counts, windowStart, plan.policy.policy.storm, straddle);
      if (step.transition !== null) {
        // Opened by the window straddling its start boundary: the incident starts a window earlier.
        const from = step.trigger && step.trigger.start < windowStart ? windowStart - plan.windowMs : windowStart;
        const drivers = windowHits > 0 || from < windowStart ? await this.drivers(projectId, plan, from, windowStart + plan.windowMs) : { keys: [], runs: [] };
        if (step.transition === "opened") {
          const storm = this.opened(projectId, plan, step, windowStart, hits, drivers, now);
          if (!(await this.deps.store.insertStorm(storm))) return notices;
          current = storm;
          notices.push(this.notify("storm.opened", storm));
        } else {
          const next = advance(current!, step, windowStart, plan.windowMs, windowHits, drivers, now);
          if (!(await this.deps.store.updateStorm(next, current!.lastWindowAt))) return notices;
          current = next.status === "open" ? next : null;
          if (next.status === "closed") notices.push(this.notify("storm.closed", next));
        }
      }
      state = step.state;
      this.judged.set(`${projectId}\u0000${plan.tool}`, { windowMs: plan.windowMs, window });
    }
    return notices;
  }

  private drivers(projectId: string, plan: ToolPlan, from: number, to: number): Promise<{ keys: HitCount[]; runs: HitCount[] }> {
    return this.deps.store.hitDrivers(projectId, plan.tool, from, to, DRIVER_SCAN_LIMIT, { keys: TOP_KEYS, runs: RUN_SAMPLE });
  }

  private opened(projectId: string, plan: ToolPlan, step: StormStep, windowStart: number, hits: ReadonlyMap<number, number>, drivers: { keys: HitCount[]; runs: HitCount[] }, now: number): StormRow {
    const baseline = step.state.open ? step.state.baseline : 0;
    const trigger = step.trigger ?? { start: windowStart, hits: hits.get(windowStart / plan.windowMs) ?? 0 };
    // The storm's windows stay the detector's windows (its chart and figures line up with them): a
    // straddling opening window makes the window before part of the incident.
    const first = trigger.start < windowStart ? windowStart - plan.windowMs : windowStart;
    const windows = first < windowStart ? [first, windowStart] : [windowStart];
    const counts = windows.map((start) => hits.get(start / plan.windowMs) ?? 0);
    return {
      id: newId("storm", now),
      projectId,
      tool: plan.tool,
      status: "open",
      windowSeconds: plan.windowMs / 1000,
      baseline,
      threshold: step.threshold,
      startedAt: first,
      lastWindowAt: windowStart,
      endedAt: null,
      peakHits: Math.max(...counts),
      lastHits: counts.at(-1)!,
      totalHits: counts.reduce((a, b) => a + b, 0),
      quietWindows: 0,
      runsInvolved: drivers.runs.length,
      topKeys: drivers.keys,
      topRuns: drivers.runs,
      policyVersion: plan.policy.version,
      updatedAt: now,
      rule: step.state.open ? step.state.rule : "baseline",
      openingWindowAt: trigger.start,
      openingHits: trigger.hits,
    };
  }

  private notify(type: StormNotice["type"], storm: StormRow): StormNotice {
    const notice = { type, storm };
    this.deps.onTransition?.(notice);
    return notice;
  }
}

/** The incident after one more window: still open (updated) or closed. */
function advance(current: StormRow, step: StormStep, windowStart: number, windowMs: number, windowHits: number, drivers: { keys: HitCount[]; runs: HitCount[] }, now: number): StormRow {
  const closed = step.transition === "closed";
  const runs = mergeHits(current.topRuns, drivers.runs, RUN_SAMPLE);
  return {
    ...current,
    status: closed ? "closed" : "open",
    lastWindowAt: windowStart,
    endedAt: closed ? windowStart + windowMs : null,
    peakHits: Math.max(current.peakHits, windowHits),
    lastHits: windowHits,
    totalHits: current.totalHits + windowHits,
    quietWindows: step.state.open ? step.state.quietWindows : QUIET_WINDOWS_TO_CLOSE,
    runsInvolved: Math.max(current.runsInvolved, runs.distinct),
    topKeys: mergeHits(current.topKeys, drivers.keys, TOP_KEYS).merged,
    topRuns: runs.merged,
    updatedAt: now,
  };
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
