import type { CallSignature } from "../../../core/loop-detector";
import type { GateEvent } from "../../ports/gate-store";

type Step = CallSignature & { id: string };

/** What a begin reads about its run: the newest loop steps on the ledger (newest first) and the run's abort. */
export interface RunState {
  steps: Step[];
  aborted: boolean;
}

interface Entry extends RunState {
  /** How many steps were read: the entry answers a read of at most this many. */
  limit: number;
}

/** Bounded by clearing: a lost entry only costs the read it saved. */
const MAX_RUNS = 10_000;

/**
 * The run's loop history and abort as this SQLite connection last read them, kept while nothing
 * else can have changed them: every other writer (another process, the insight store's and
 * Prisma's connections, which write run aborts and retention's deletes) commits on another
 * connection, and any such commit changes the connection's `PRAGMA data_version`, which every
 * begin reads first (one statement, no table touched); a changed version drops every entry. This
 * connection's own commits leave it as it is, so the loop steps they carry are added here once
 * committed (`committed`), in id order as the ledger orders them. A begin then reads its run's
 * state from the database only when someone else wrote since, instead of on every begin.
 */
export class RunStateCache {
  private readonly runs = new Map<string, Entry>();
  /** PRAGMA data_version when the entries were read: unchanged means no other connection has committed since. */
  private version = -1;

  /** Call first, with the connection's data_version now: entries from before another connection's commit go. */
  observe(dataVersion: number): void {
    if (dataVersion === this.version) return;
    this.runs.clear();
    this.version = dataVersion;
  }

  /** The run's newest `limit` steps and its abort, if held (observe first). */
  get(projectId: string, runId: string, limit: number): RunState | undefined {
    const entry = this.runs.get(runKey(projectId, runId));
    if (!entry || entry.limit < limit) return undefined;
    return { steps: entry.steps.length > limit ? entry.steps.slice(0, limit) : entry.steps, aborted: entry.aborted };
  }

  /** What was just read from the database at the observed version (observe first, then read, then set). */
  set(projectId: string, runId: string, limit: number, state: RunState): void {
    if (this.runs.size >= MAX_RUNS) this.runs.clear();
    this.runs.set(runKey(projectId, runId), { aborted: state.aborted, steps: state.steps.slice(), limit });
  }

  /**
   * Events this connection committed: their loop steps join their run's entry (the database
   * returns loop_step rows by id, newest first; a row written again keeps its place).
   */
  committed(events: readonly GateEvent[]): void {
    for (const event of events) {
      if (!event.loopStep) continue;
      const entry = this.runs.get(runKey(event.projectId, event.runId));
      if (!entry || entry.steps.some((step) => step.id === event.id)) continue;
      const at = entry.steps.findIndex((step) => step.id < event.id);
      const step = { id: event.id, tool: event.tool, argsFingerprint: String(event.argsFingerprint) };
      if (at === -1) entry.steps.push(step);
      else entry.steps.splice(at, 0, step);
      if (entry.steps.length > entry.limit) entry.steps.length = entry.limit;
    }
  }

  /** Entries held (tests). */
  get size(): number {
    return this.runs.size;
  }
}

function runKey(projectId: string, runId: string): string {
  return `${projectId}\u0000${runId}`;
}
