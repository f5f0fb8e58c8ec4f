/**
 * The vocabulary of the suite. A subject is something measured (a raw driver, the gate in-process,
 * the gate over HTTP, the peer); a workload is one kind of operation on it (fresh claim+complete
 * pairs, replays, a stats query); a cell is subject × workload × concurrent clients, run `reps`
 * times interleaved with every other cell.
 */
export type Group = "floor" | "inprocess" | "before" | "http" | "peer" | "growth" | "stats" | "scaleout" | "httptools" | "mcp";

export type WorkloadName = "fresh" | "replay" | "begin-fresh" | "begin-replay" | string;

export interface Workload {
  name: WorkloadName;
  /** What one operation is, for the table: "pairs", "begins", "requests", "queries". */
  unit: string;
  clients: number[];
  /** Untimed, once before the first repetition (e.g. the completed keys replays read). */
  prepare?(): Promise<void>;
  /**
   * One operation. `seq` keeps counting across repetitions of the cell, so replays keep walking
   * their pool in the same order; `tag` is unique per cell repetition, so fresh keys never repeat.
   */
  op(seq: number, tag: string): Promise<void>;
  /** Overrides the run's operation target for this workload (e.g. slow dashboard queries). */
  ops?: number;
}

export interface Subject {
  /** Stable id, used in cell ids and the JSON: `floor.sqlite-normal`, `http.postgres`, … */
  id: string;
  group: Group;
  /** What the table shows. */
  label: string;
  /** The subject whose same workload and client count this one is compared with. */
  floorId?: string;
  workloads: Workload[];
  close(): Promise<void>;
}

/** A subject that could not be set up (no Postgres, no Redis): its cells are reported skipped. */
export interface SkippedSubject {
  id: string;
  group: Group;
  label: string;
  floorId?: string;
  skipped: string;
  /** The workload names and clients the subject would have had, so the table still lists them. */
  workloads: { name: WorkloadName; unit: string; clients: number[] }[];
}

export type SubjectOrSkip = Subject | SkippedSubject;

export const isSkipped = (subject: SubjectOrSkip): subject is SkippedSubject => "skipped" in subject;

export const NO_POSTGRES = "no Postgres at TEST_POSTGRES_URL";

export type WorkloadShape = [name: WorkloadName, unit: string, clients: readonly number[]];

export function skippedSubject(id: string, group: Group, label: string, reason: string, workloads: WorkloadShape[], floorId?: string): SkippedSubject {
  return { id, group, label, floorId, skipped: reason, workloads: workloads.map(([name, unit, clients]) => ({ name, unit, clients: [...clients] })) };
}

export const pairWorkloads = (fresh: readonly number[], replay: readonly number[]): WorkloadShape[] => [
  ["fresh", "pairs", fresh],
  ["replay", "begins", replay],
];

/** The client counts of the issue: 1 and 32 everywhere, 8 too where the bar is stated at 8. */
export const CLIENTS = { standard: [1, 32], withEight: [1, 8, 32], single: [1] } as const;

/**
 * Replay pools (BenchOptions.replayPool keys, ≥ 4 × the most clients): keys are grouped four to a
 * run and replayed in rotation, so a run's recent steps cycle through four distinct calls — what a
 * re-planning agent looks like, and longer than the loop detector's cycles (≤ 2), which would
 * otherwise rightly block an agent replaying one call over and over.
 */
export const REPLAY_RUN_SIZE = 4;
/** Fresh keys: runs of 16 steps with distinct arguments (so no run looks like a loop). */
export const FRESH_RUN_SIZE = 16;

export interface CallCoordinates {
  runId: string;
  step: string;
  args: { n: number };
}

export function freshCall(tag: string, seq: number): CallCoordinates {
  return { runId: `${tag}_r${Math.floor(seq / FRESH_RUN_SIZE)}`, step: `s${seq}`, args: { n: seq } };
}

export function replayCall(poolTag: string, seq: number, poolSize: number): CallCoordinates {
  const index = seq % poolSize;
  return { runId: `${poolTag}_r${Math.floor(index / REPLAY_RUN_SIZE)}`, step: `s${index}`, args: { n: index } };
}
