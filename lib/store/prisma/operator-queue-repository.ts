import type { AcceptedOperation } from "../../core/record";
import type { Db } from "./client";

type EventWhere = NonNullable<NonNullable<Parameters<Db["event"]["count"]>[0]>["where"]>;

export interface UncheckedCallRow {
  callId: string;
  tool: string;
  key: string;
  runId: string;
  stepId: string | null;
  agentId: string | null;
  checkedAt: number;
  reason: string | null;
}

export interface AcceptedRow {
  callId: string;
  tool: string;
  key: string;
  runId: string;
  operation: AcceptedOperation;
  acceptedAt: number;
  expiresAt: number;
}

export interface VerifyTallyRow {
  found: number;
  notFound: number;
  unknown: number;
  byHand: number;
}

/**
 * The operators' queue through Prisma Client (off the hot path, small answers): calls whose status
 * check answered unknown and are still unresolved, accepted records, and the verify tally.
 */
export class OperatorQueueRepository {
  constructor(private readonly prisma: Db) {}

  /** Latest `check: unknown` per call whose record is still in progress (nobody resolved it). */
  async uncheckedCalls(projectId: string, since: number, limit: number): Promise<UncheckedCallRow[]> {
    const events = await this.prisma.event.findMany({
      // Bounded by time, so the read walks (project_id, at), not the project's whole ledger.
      where: { projectId, at: { gte: BigInt(since) }, type: "check", decision: "unknown" },
      orderBy: { id: "desc" },
      take: limit * 4,
      select: { callId: true, at: true, detail: true },
    });
    const latest = new Map<string, { at: number; reason: string | null }>();
    for (const event of events) {
      if (event.callId !== null && !latest.has(event.callId)) latest.set(event.callId, { at: Number(event.at), reason: reasonOf(event.detail) });
    }
    if (latest.size === 0) return [];
    const records = await this.prisma.callRecord.findMany({ where: { projectId, id: { in: [...latest.keys()] }, state: "in_progress" } });
    return records
      .map((r) => ({ callId: r.id, tool: r.tool, key: r.key, runId: r.runId, stepId: r.stepId, agentId: r.agentId, checkedAt: latest.get(r.id)!.at, reason: latest.get(r.id)!.reason }))
      .sort((a, b) => b.checkedAt - a.checkedAt)
      .slice(0, limit);
  }

  async acceptedRecords(projectId: string, limit: number): Promise<AcceptedRow[]> {
    const rows = await this.prisma.callRecord.findMany({ where: { projectId, state: "accepted" }, orderBy: [{ updatedAt: "asc" }, { id: "asc" }], take: limit });
    return rows.map((r) => ({
      callId: r.id,
      tool: r.tool,
      key: r.key,
      runId: r.runId,
      operation: JSON.parse(r.result ?? "{}") as AcceptedOperation,
      acceptedAt: Number(r.updatedAt),
      expiresAt: Number(r.expiresAt),
    }));
  }

  /** Ledger counts in [from, to): one range of the (project_id, at) index per count. */
  async verifyTally(projectId: string, from: number, to: number): Promise<VerifyTallyRow> {
    const at = { gte: BigInt(from), lt: BigInt(to) };
    const count = (where: EventWhere) => this.prisma.event.count({ where: { projectId, at, ...where } });
    const [found, notFound, unknown, byHand] = await Promise.all([
      count({ type: "complete", detail: { contains: '"check":"found"' } }),
      count({ type: "complete", detail: { contains: '"check":"not_found"' } }),
      count({ type: "check", decision: "unknown" }),
      count({ type: "operator", decision: { in: ["resolved_succeeded", "resolved_failed"] } }),
    ]);
    return { found, notFound, unknown, byHand };
  }
}

function reasonOf(detail: string | null): string | null {
  if (detail === null) return null;
  const parsed = JSON.parse(detail) as { reason?: unknown } | null;
  return typeof parsed?.reason === "string" ? parsed.reason : null;
}
