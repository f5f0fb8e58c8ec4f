import type { Db } from "./client";

/**
 * Whether a project has ever seen a run id: a record of its (kept for the TTL), a ledger event of its
 * (kept for the event retention) or an abort of it. Each is one indexed lookup by (project, run).
 */
export class KnownRunsRepository {
  constructor(private readonly prisma: Db) {}

  async exists(projectId: string, runId: string): Promise<boolean> {
    const record = await this.prisma.callRecord.findFirst({ where: { projectId, runId }, select: { id: true } });
    if (record) return true;
    const event = await this.prisma.event.findFirst({ where: { projectId, runId }, select: { id: true } });
    if (event) return true;
    const abort = await this.prisma.runAbort.findUnique({ where: { projectId_runId: { projectId, runId } }, select: { runId: true } });
    return abort !== null;
  }
}
