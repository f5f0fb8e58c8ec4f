import type { CallRecord } from "../../core/record";
import type { GateEvent } from "../ports/gate-store";
import type { AuditEntryRow } from "../ports/operator-store";
import type { Db } from "./client";
import { fromStoredRecord, toStoredEvent } from "./stored-rows";

export interface RunAbortRow {
  projectId: string;
  runId: string;
  reason: string;
  abortedBy: string;
  abortedAt: number;
}

/** Sagas through Prisma Client (off the hot path): a run's abort, and the records its plan reads. */
export class RunAbortRepository {
  constructor(private readonly prisma: Db) {}

  async find(projectId: string, runId: string): Promise<RunAbortRow | null> {
    const row = await this.prisma.runAbort.findUnique({ where: { projectId_runId: { projectId, runId } } });
    return row ? { ...row, abortedAt: Number(row.abortedAt) } : null;
  }

  async findMany(projectId: string, runIds: string[]): Promise<RunAbortRow[]> {
    if (runIds.length === 0) return [];
    const rows = await this.prisma.runAbort.findMany({ where: { projectId, runId: { in: runIds } } });
    return rows.map((row) => ({ ...row, abortedAt: Number(row.abortedAt) }));
  }

  /** The project's latest aborts, newest first (the operators' queue looks for runs still needing work). */
  async recent(projectId: string, limit: number): Promise<RunAbortRow[]> {
    const rows = await this.prisma.runAbort.findMany({ where: { projectId }, orderBy: { abortedAt: "desc" }, take: limit });
    return rows.map((row) => ({ ...row, abortedAt: Number(row.abortedAt) }));
  }

  /**
   * The first abort wins and later ones change nothing (false): the insert, its ledger event and its
   * audit entry are one transaction. Insert-if-absent rather than catching a unique violation, which
   * costs a Postgres session (STACK.md).
   */
  async insertIfAbsent(row: RunAbortRow, event: GateEvent, audit: AuditEntryRow | null): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      // Prisma's createMany has no skipDuplicates on SQLite; this statement is the same on both.
      const inserted = await tx.$executeRaw`INSERT INTO run_aborts (project_id, run_id, reason, aborted_by, aborted_at)
        VALUES (${row.projectId}, ${row.runId}, ${row.reason}, ${row.abortedBy}, ${BigInt(row.abortedAt)})
        ON CONFLICT (project_id, run_id) DO NOTHING`;
      if (inserted !== 1) return false;
      await tx.event.create({ data: toStoredEvent(event) });
      if (audit) await tx.auditEntry.create({ data: audit });
      return true;
    });
  }

  /** Every record of these runs (one query), grouped by run. */
  async recordsOfRuns(projectId: string, runIds: string[]): Promise<Map<string, CallRecord[]>> {
    const byRun = new Map<string, CallRecord[]>(runIds.map((runId) => [runId, []]));
    if (runIds.length === 0) return byRun;
    const rows = await this.prisma.callRecord.findMany({ where: { projectId, runId: { in: runIds } }, orderBy: [{ firstSeenAt: "asc" }, { id: "asc" }] });
    for (const row of rows) byRun.get(row.runId)?.push(fromStoredRecord(row));
    return byRun;
  }

  /** Every record of the run: its calls and their compensations (`<key>:compensate`). */
  async recordsOfRun(projectId: string, runId: string): Promise<CallRecord[]> {
    const rows = await this.prisma.callRecord.findMany({ where: { projectId, runId }, orderBy: [{ firstSeenAt: "asc" }, { id: "asc" }] });
    return rows.map(fromStoredRecord);
  }
}
