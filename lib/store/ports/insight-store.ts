import type { StormRule } from "../../core/storm-detector";
import type { NamedHits } from "../../core/hit-counts";

/**
 * Storage for what runs beside the decisions: retention, retry-storm incidents and the
 * dashboard's statistics. Kept apart from the hot-path GateStore (its own connection or small
 * pool), so background deletes and chart queries never queue behind, or in front of, decisions.
 */

export interface RetentionStore {
  listProjectIds(): Promise<string[]>;
  /** Attempts holding a live lease now, per project: the in-progress gauge. */
  liveLeases(now: number): Promise<{ projectId: string; leases: number }[]>;
  /** Deletes up to `limit` records past their TTL, never one whose lease is live at `now`. */
  purgeExpiredRecords(now: number, limit: number): Promise<number>;
  /** Deletes up to `limit` of a project's events with `at < before`. */
  purgeEvents(projectId: string, before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` rollup rows of minutes before `before`. */
  purgeRollups(before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` closed storms that ended before `before`. */
  purgeClosedStorms(before: number, limit: number): Promise<number>;
}

/** Dedup hits of one tool in one window; `window` = floor(at / windowMs). */
export interface WindowHits {
  tool: string;
  window: number;
  hits: number;
}

/** A key or run and the dedup hits it drove. */
export type HitCount = NamedHits;

export type StormStatus = "open" | "closed";

export interface StormRow {
  id: string;
  projectId: string;
  tool: string;
  status: StormStatus;
  windowSeconds: number;
  baseline: number;
  threshold: number;
  startedAt: number;
  lastWindowAt: number;
  endedAt: number | null;
  peakHits: number;
  lastHits: number;
  totalHits: number;
  quietWindows: number;
  runsInvolved: number;
  topKeys: HitCount[];
  topRuns: HitCount[];
  policyVersion: number;
  updatedAt: number;
  rule: StormRule;
  /** The window that opened it and its hits: one of the storm's windows, or the one straddling its first boundary. */
  openingWindowAt: number;
  openingHits: number;
}

/** Dedup hits and all begins of a tool in one bucket. */
export interface WindowCounts extends WindowHits {
  begins: number;
}

export interface StormStore {
  /** Dedup hits and begins per tool and bucket over [from, to), from the ledger: the detector's half windows. */
  windowCounts(projectId: string, bucketMs: number, from: number, to: number): Promise<WindowCounts[]>;
  /** Dedup hits per tool and window over [from, to), counted in the ledger (any window length). */
  dedupHitsFromEvents(projectId: string, windowMs: number, from: number, to: number): Promise<WindowHits[]>;
  /** The same from the minute rollups: exact and cheap when windows are whole minutes. */
  dedupHitsFromRollups(projectId: string, windowMs: number, from: number, to: number): Promise<WindowHits[]>;
  /** Who drove a tool's dedup hits in [from, to): heaviest keys and runs among at most `scanLimit` hits. */
  hitDrivers(projectId: string, tool: string, from: number, to: number, scanLimit: number, limits: { keys: number; runs: number }): Promise<{ keys: HitCount[]; runs: HitCount[] }>;
  openStorms(projectId: string): Promise<StormRow[]>;
  /** Per tool, the latest window any of its storms judged. */
  stormWatermarks(projectId: string): Promise<Map<string, number>>;
  /**
   * Opens an incident; false when the tool already has an open one, or a storm already judged
   * this window (another instance got there first).
   */
  insertStorm(storm: StormRow): Promise<boolean>;
  /** Compare-and-set on the window last judged; false when another instance moved it first. */
  updateStorm(storm: StormRow, expectedLastWindowAt: number): Promise<boolean>;
  listStorms(projectId: string, status: StormStatus | null, limit: number): Promise<StormRow[]>;
  /** One incident of the project; another project's id is null like an unknown one. */
  findStorm(projectId: string, id: string): Promise<StormRow | null>;
}

/** One rollup bucket: events of a kind for a tool. */
export interface RollupPoint {
  tool: string;
  kind: string;
  at: number;
  total: number;
}

export interface RollupTotal {
  tool: string;
  kind: string;
  total: number;
  latencyUs: number;
}

/** A run's begins in a range, and how many of them were dedup hits. */
export interface RunPressureRow {
  runId: string;
  begins: number;
  dedupHits: number;
  tools: number;
  firstAt: number;
  lastAt: number;
}

/** Shadow mode: a tool's executions the gate would have prevented as duplicates (lib/core/shadow.ts). */
export interface ShadowPreventedRow {
  tool: string;
  wouldPrevent: number;
}

export interface StatsStore {
  /** Rollups summed per `bucketMs` over [from, to); `tool` null = every tool. */
  rollupSeries(projectId: string, from: number, to: number, bucketMs: number, tool: string | null): Promise<RollupPoint[]>;
  rollupTotals(projectId: string, from: number, to: number): Promise<RollupTotal[]>;
  /** Runs by dedup hits among the latest `scanLimit` begins in [from, to); `scanned` says how many were read. */
  topRuns(projectId: string, from: number, to: number, scanLimit: number, limit: number): Promise<{ runs: RunPressureRow[]; scanned: number }>;
  /** Per tool, shadow-mode begins in [from, to) that would have been a replay, a wait, a refusal or a conflict; tools without any are left out. */
  shadowPrevented(projectId: string, from: number, to: number): Promise<ShadowPreventedRow[]>;
}

export interface InsightStore extends RetentionStore, StormStore, StatsStore {
  readonly provider: "sqlite" | "postgres";
  close(): Promise<void>;
}
