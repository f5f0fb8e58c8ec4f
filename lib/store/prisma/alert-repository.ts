import type { AlertCondition, AlertSignal, OpenIncidentChannel, SignalKind } from "../../core/alerts";
import type {
  AlertAttemptRow,
  AlertChannelRow,
  AlertDeliveryRow,
  AlertRuleRow,
  AlertStore,
  AttemptResult,
  WaitingResend,
  WaitingVerify,
} from "../ports/alert-store";
import type { AuditEntryRow } from "../ports/operator-store";
import type { Db } from "./client";

const num = (value: bigint | number | null): number | null => (value === null ? null : Number(value));
const auditData = (audit: AuditEntryRow) => ({ ...audit, at: BigInt(audit.at) });

type StoredChannel = Omit<AlertChannelRow, "createdAt" | "kind"> & { kind: string; createdAt: bigint };
type StoredRule = Omit<AlertRuleRow, "createdAt" | "channelIds" | "condition"> & { condition: string; channelIds: string; createdAt: bigint };
type StoredDelivery = Omit<AlertDeliveryRow, "createdAt" | "nextAttemptAt" | "leaseUntil" | "deliveredAt" | "status" | "action"> & {
  status: string;
  action: string;
  createdAt: bigint;
  nextAttemptAt: bigint;
  leaseUntil: bigint | null;
  deliveredAt: bigint | null;
};

const toChannel = (row: StoredChannel): AlertChannelRow => ({ ...row, kind: row.kind as AlertChannelRow["kind"], createdAt: Number(row.createdAt) });
const toRule = (row: StoredRule): AlertRuleRow => ({
  ...row,
  condition: row.condition as AlertCondition,
  channelIds: JSON.parse(row.channelIds) as string[],
  createdAt: Number(row.createdAt),
});
const toDelivery = (row: StoredDelivery): AlertDeliveryRow => ({
  ...row,
  status: row.status as AlertDeliveryRow["status"],
  action: row.action as AlertDeliveryRow["action"],
  createdAt: Number(row.createdAt),
  nextAttemptAt: Number(row.nextAttemptAt),
  leaseUntil: num(row.leaseUntil),
  deliveredAt: num(row.deliveredAt),
});

function deliveryData(row: AlertDeliveryRow) {
  return {
    ...row,
    createdAt: BigInt(row.createdAt),
    nextAttemptAt: BigInt(row.nextAttemptAt),
    leaseUntil: row.leaseUntil === null ? null : BigInt(row.leaseUntil),
    deliveredAt: row.deliveredAt === null ? null : BigInt(row.deliveredAt),
  };
}

/** The lease a grouped webhook's follower holds: its leader's id, and no end (it is sent and settled only with the leader). */
const followerLease = (leaderId: string) => `group:${leaderId}`;
const PARKED_UNTIL = BigInt(Number.MAX_SAFE_INTEGER);

/** Alerts with Prisma Client; inserts that may race use ON CONFLICT DO NOTHING (never a caught P2002). */
export class PrismaAlertRepository implements AlertStore {
  constructor(private readonly prisma: Db) {}

  async listChannels(projectId: string): Promise<AlertChannelRow[]> {
    return (await this.prisma.alertChannel.findMany({ where: { projectId }, orderBy: { createdAt: "asc" } })).map(toChannel);
  }

  async findChannel(projectId: string, id: string): Promise<AlertChannelRow | null> {
    const row = await this.prisma.alertChannel.findFirst({ where: { projectId, id } });
    return row ? toChannel(row) : null;
  }

  async addChannel(row: AlertChannelRow, audit: AuditEntryRow): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.alertChannel.create({ data: { ...row, createdAt: BigInt(row.createdAt) } }),
      this.prisma.auditEntry.create({ data: auditData(audit) }),
    ]);
  }

  async removeChannel(projectId: string, id: string, audit: AuditEntryRow): Promise<AlertChannelRow | null> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.alertChannel.findFirst({ where: { projectId, id } });
      if (!row) return null;
      await tx.alertChannel.delete({ where: { id } });
      for (const rule of await tx.alertRule.findMany({ where: { projectId } })) {
        const ids = (JSON.parse(rule.channelIds) as string[]).filter((channelId) => channelId !== id);
        if (ids.length !== (JSON.parse(rule.channelIds) as string[]).length) await tx.alertRule.update({ where: { id: rule.id }, data: { channelIds: JSON.stringify(ids) } });
      }
      await tx.auditEntry.create({ data: auditData(audit) });
      return toChannel(row);
    });
  }

  async listRules(projectId: string): Promise<AlertRuleRow[]> {
    return (await this.prisma.alertRule.findMany({ where: { projectId }, orderBy: { createdAt: "asc" } })).map(toRule);
  }

  async addRule(row: AlertRuleRow, audit: AuditEntryRow): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.alertRule.create({ data: { ...row, channelIds: JSON.stringify(row.channelIds), createdAt: BigInt(row.createdAt) } }),
      this.prisma.auditEntry.create({ data: auditData(audit) }),
    ]);
  }

  async removeRule(projectId: string, id: string, audit: AuditEntryRow): Promise<AlertRuleRow | null> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.alertRule.findFirst({ where: { projectId, id } });
      if (!row) return null;
      await tx.alertRule.delete({ where: { id } });
      await tx.auditEntry.create({ data: auditData(audit) });
      return toRule(row);
    });
  }

  async projectsWithTimedRules(): Promise<string[]> {
    const rows = await this.prisma.alertRule.findMany({ where: { condition: { in: ["verify_unresolved", "approval_pending"] } }, select: { projectId: true }, distinct: ["projectId"] });
    return rows.map((row) => row.projectId);
  }

  async insertSignal(signal: AlertSignal): Promise<boolean> {
    const detail = signal.detail === null ? null : JSON.stringify(signal.detail);
    const inserted = await this.prisma.$executeRaw`INSERT INTO alert_signals (id, project_id, kind, source_id, tool, run_id, call_id, detail, at)
      VALUES (${signal.id}, ${signal.projectId}, ${signal.kind}, ${signal.sourceId}, ${signal.tool}, ${signal.runId}, ${signal.callId}, ${detail}, ${BigInt(signal.at)})
      ON CONFLICT DO NOTHING`;
    return inserted === 1;
  }

  async unprocessedSignals(limit: number): Promise<AlertSignal[]> {
    const rows = await this.prisma.alertSignal.findMany({ where: { processedAt: null }, orderBy: [{ at: "asc" }, { id: "asc" }], take: limit });
    return rows.map(toSignal);
  }

  async openIncidents(conditions: readonly AlertCondition[], limit: number): Promise<AlertSignal[]> {
    if (conditions.length === 0) return [];
    // The conditions are core's constants, never input: checked, then written into the statement.
    if (!conditions.every((condition) => /^[a-z_]+$/.test(condition))) throw new Error("alert conditions are identifiers");
    const list = conditions.map((condition) => `'${condition}'`).join(", ");
    // Triggers with no resolve yet (its id: resolveSignalId in lib/core/alerts), whose incident's
    // triggers and updates have all settled (a resolve must not overtake its trigger, nor an update).
    const open = await this.prisma.$queryRawUnsafe<{ signal_id: string }[]>(
      `SELECT DISTINCT d.signal_id FROM alert_deliveries d
        WHERE d.action = 'trigger' AND d.condition IN (${list})
          AND NOT EXISTS (SELECT 1 FROM alert_signals r WHERE r.id = d.signal_id || '_resolved')
          AND NOT EXISTS (SELECT 1 FROM alert_deliveries p WHERE p.dedup_key = d.dedup_key AND p.action = 'trigger' AND p.status = 'pending')
          AND NOT EXISTS (SELECT 1 FROM alert_deliveries r WHERE r.dedup_key = d.dedup_key AND r.action = 'resolve' AND r.created_at >= d.created_at)
        LIMIT ${Math.max(1, Math.floor(limit))}`,
    );
    if (open.length === 0) return [];
    const rows = await this.prisma.alertSignal.findMany({ where: { id: { in: open.map((row) => row.signal_id) } }, orderBy: [{ at: "asc" }, { id: "asc" }] });
    return rows.map(toSignal);
  }

  async openIncidentChannels(projectId: string, dedupKey: string): Promise<OpenIncidentChannel[]> {
    const rows = await this.prisma.alertDelivery.findMany({
      where: { projectId, dedupKey, status: { not: "failed" } },
      select: { channelId: true, ruleId: true, condition: true, action: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const latest = new Map<string, (typeof rows)[number]>();
    for (const row of rows) latest.set(row.channelId, row);
    return [...latest.values()]
      .filter((row) => row.action === "trigger")
      .map((row) => ({ channelId: row.channelId, ruleId: row.ruleId, condition: row.condition as AlertCondition }));
  }

  async untriedFor(channelId: string, dedupKey: string): Promise<AlertDeliveryRow | null> {
    const row = await this.prisma.alertDelivery.findFirst({
      where: { channelId, dedupKey, status: "pending", attempts: 0, leaseOwner: null },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    return row ? toDelivery(row) : null;
  }

  async rewriteUntried(id: string, alert: string): Promise<boolean> {
    // Conditional: a delivery a worker has claimed (or sent) keeps what it was sent with.
    const { count } = await this.prisma.alertDelivery.updateMany({ where: { id, status: "pending", attempts: 0, leaseOwner: null }, data: { alert } });
    return count === 1;
  }

  async runSignals(projectId: string, runId: string, since: number): Promise<AlertSignal[]> {
    const rows = await this.prisma.alertSignal.findMany({ where: { projectId, runId, kind: "event", at: { gt: BigInt(since) } }, orderBy: [{ at: "asc" }, { id: "asc" }], take: 10_000 });
    return rows.map(toSignal);
  }

  async lastResolvedAt(projectId: string, dedupKey: string): Promise<number> {
    const row = await this.prisma.alertDelivery.findFirst({ where: { projectId, dedupKey, action: "resolve" }, orderBy: { createdAt: "desc" }, select: { createdAt: true } });
    return row ? Number(row.createdAt) : 0;
  }

  async incidentHolds(signal: AlertSignal, condition: AlertCondition): Promise<boolean> {
    const { projectId } = signal;
    switch (condition) {
      case "verify_unresolved": {
        // Still the attempt told to verify, and still without an outcome.
        const attempt = Number(signal.detail?.attempt);
        const record = signal.callId ? await this.prisma.callRecord.findFirst({ where: { projectId, id: signal.callId }, select: { state: true, attempt: true } }) : null;
        return record !== null && record.state === "in_progress" && record.attempt === attempt;
      }
      case "approval_pending": {
        const request = await this.prisma.resendRequest.findFirst({ where: { projectId, id: signal.sourceId }, select: { status: true } });
        return request?.status === "pending";
      }
      case "compensation_failed": {
        // A retry evicts the failed undo's record; resolving it by hand makes it succeeded.
        const record = signal.callId ? await this.prisma.callRecord.findFirst({ where: { projectId, id: signal.callId }, select: { state: true } }) : null;
        return record?.state === "failed";
      }
      case "budget_exceeded": {
        if (!signal.runId) return false;
        const raised = await this.prisma.auditEntry.findFirst({
          where: { projectId, action: "run.budget_raised", targetType: "run", targetId: signal.runId, at: { gte: BigInt(signal.at) } },
          select: { id: true },
        });
        return raised === null;
      }
      case "loop_blocked": {
        // The run moved on (a later begin answered otherwise) or was aborted.
        if (!signal.runId) return false;
        const [movedOn, aborted] = await Promise.all([
          this.prisma.event.findFirst({ where: { projectId, runId: signal.runId, type: "begin", decision: { not: "blocked" }, at: { gt: BigInt(signal.at) } }, select: { id: true } }),
          this.prisma.runAbort.findFirst({ where: { projectId, runId: signal.runId }, select: { runId: true } }),
        ]);
        return movedOn === null && aborted === null;
      }
      default:
        return true;
    }
  }

  async fanOut(signalId: string, deliveries: AlertDeliveryRow[], now: number): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      for (const d of deliveries) {
        await tx.$executeRaw`INSERT INTO alert_deliveries (id, project_id, signal_id, channel_id, rule_id, condition, action, dedup_key, alert, status, attempts, next_attempt_at, created_at)
          VALUES (${d.id}, ${d.projectId}, ${d.signalId}, ${d.channelId}, ${d.ruleId}, ${d.condition}, ${d.action}, ${d.dedupKey}, ${d.alert}, ${d.status}, 0, ${BigInt(d.nextAttemptAt)}, ${BigInt(d.createdAt)})
          ON CONFLICT (signal_id, channel_id) DO NOTHING`;
      }
      await tx.alertSignal.updateMany({ where: { id: signalId, processedAt: null }, data: { processedAt: BigInt(now) } });
    });
  }

  async insertDelivery(delivery: AlertDeliveryRow, audit?: AuditEntryRow): Promise<void> {
    if (!audit) {
      await this.prisma.alertDelivery.create({ data: deliveryData(delivery) });
      return;
    }
    await this.prisma.$transaction([this.prisma.alertDelivery.create({ data: deliveryData(delivery) }), this.prisma.auditEntry.create({ data: auditData(audit) })]);
  }

  async dueDeliveries(now: number, limit: number): Promise<{ id: string; projectId: string; channelId: string }[]> {
    const at = BigInt(now);
    const rows = await this.prisma.alertDelivery.findMany({
      where: { status: "pending", nextAttemptAt: { lte: at }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: at } }] },
      orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }, { id: "asc" }],
      take: limit,
      select: { id: true, projectId: true, channelId: true },
    });
    return rows;
  }

  async groupable(channelId: string, now: number, limit: number): Promise<string[]> {
    const at = BigInt(now);
    const rows = await this.prisma.alertDelivery.findMany({
      where: {
        channelId,
        status: "pending",
        AND: [{ OR: [{ leaseUntil: null }, { leaseUntil: { lt: at } }] }, { OR: [{ nextAttemptAt: { lte: at } }, { attempts: 0 }] }],
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: limit,
      select: { id: true },
    });
    return rows.map((row) => row.id);
  }

  async claim(id: string, owner: string, now: number, leaseMs: number, untried = false): Promise<AlertDeliveryRow | null> {
    const at = BigInt(now);
    const due = untried ? { OR: [{ nextAttemptAt: { lte: at } }, { attempts: 0 }] } : { nextAttemptAt: { lte: at } };
    // One conditional UPDATE: of two workers, only one sees a row change.
    const { count } = await this.prisma.alertDelivery.updateMany({
      where: { id, status: "pending", AND: [due, { OR: [{ leaseUntil: null }, { leaseUntil: { lt: at } }] }] },
      data: { leaseOwner: owner, leaseUntil: BigInt(now + leaseMs) },
    });
    if (count !== 1) return null;
    const row = await this.prisma.alertDelivery.findUnique({ where: { id } });
    return row && row.leaseOwner === owner ? toDelivery(row) : null;
  }

  async parkFollowers(leaderId: string, ids: string[], upTo: number, now: number): Promise<AlertDeliveryRow[]> {
    const parkedBy = followerLease(leaderId);
    const parked = () => this.prisma.alertDelivery.findMany({ where: { leaseOwner: parkedBy, status: "pending" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    const already = await parked();
    if (already.length > 0 || ids.length === 0) return already.map(toDelivery);
    const at = BigInt(now);
    // One conditional UPDATE: a delivery another worker claimed meanwhile is not taken.
    await this.prisma.alertDelivery.updateMany({
      where: { id: { in: ids.filter((id) => id !== leaderId) }, status: "pending", attempts: 0, createdAt: { lte: BigInt(upTo) }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: at } }] },
      data: { leaseOwner: parkedBy, leaseUntil: PARKED_UNTIL },
    });
    return (await parked()).map(toDelivery);
  }

  async finishAttempt(id: string, owner: string, result: AttemptResult): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.alertDelivery.updateMany({
        where: { id, leaseOwner: owner, status: "pending" },
        data: { ...attemptColumns(result), leaseOwner: null, leaseUntil: null },
      });
      // The attempt happened whoever holds the lease now: it is logged either way.
      await tx.alertDeliveryAttempt.create({ data: { ...result.log, at: BigInt(result.log.at) } });
      if (count === 1 && result.followers && result.followers.length > 0) {
        // A grouped request's other members settle with it, in the same transaction; while it is
        // retried they stay parked under it.
        const settled = result.status !== "pending";
        await tx.alertDelivery.updateMany({
          where: { leaseOwner: followerLease(id), status: "pending" },
          data: { ...attemptColumns(result), ...(settled ? { leaseOwner: null, leaseUntil: null } : {}) },
        });
        for (const log of result.followers) await tx.alertDeliveryAttempt.create({ data: { ...log, at: BigInt(log.at) } });
      }
      return count === 1;
    });
  }

  async listDeliveries(projectId: string, limit: number): Promise<AlertDeliveryRow[]> {
    const rows = await this.prisma.alertDelivery.findMany({ where: { projectId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit });
    return rows.map(toDelivery);
  }

  async listAttempts(projectId: string, deliveryIds: string[]): Promise<AlertAttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.prisma.alertDeliveryAttempt.findMany({ where: { projectId, deliveryId: { in: deliveryIds } }, orderBy: [{ at: "asc" }, { id: "asc" }] });
    return rows.map((row) => ({ ...row, outcome: row.outcome as AlertAttemptRow["outcome"], at: Number(row.at) }));
  }

  async purge(before: number): Promise<number> {
    const at = BigInt(before);
    const [signals, deliveries, attempts] = await this.prisma.$transaction([
      this.prisma.alertSignal.deleteMany({ where: { processedAt: { lt: at } } }),
      this.prisma.alertDelivery.deleteMany({ where: { status: { in: ["delivered", "failed"] }, createdAt: { lt: at } } }),
      this.prisma.alertDeliveryAttempt.deleteMany({ where: { at: { lt: at } } }),
    ]);
    return signals.count + deliveries.count + attempts.count;
  }

  async waitingVerifies(projectId: string, olderThan: number, since: number): Promise<WaitingVerify[]> {
    const rows = await this.prisma.$queryRaw<{ call_id: string; tool: string; run_id: string; attempt: number | bigint; at: number | bigint }[]>`
      SELECT e.call_id, e.tool, e.run_id, e.attempt, e.at FROM events e
      JOIN call_records r ON r.project_id = e.project_id AND r.id = e.call_id
      WHERE e.project_id = ${projectId} AND e.type = 'begin' AND e.decision = 'verify'
        AND e.at <= ${BigInt(olderThan)} AND e.at >= ${BigInt(since)}
        AND r.state = 'in_progress' AND r.attempt = e.attempt
      ORDER BY e.at LIMIT 200`;
    return rows.map((row) => ({ callId: row.call_id, tool: row.tool, runId: row.run_id, attempt: Number(row.attempt), at: Number(row.at) }));
  }

  async waitingResends(projectId: string, olderThan: number): Promise<WaitingResend[]> {
    const rows = await this.prisma.resendRequest.findMany({
      where: { projectId, status: "pending", createdAt: { lte: BigInt(olderThan) } },
      select: { id: true, callId: true, tool: true, createdAt: true },
      orderBy: { createdAt: "asc" },
      take: 200,
    });
    return rows.map((row) => ({ ...row, createdAt: Number(row.createdAt) }));
  }
}

function toSignal(row: { id: string; projectId: string; kind: string; sourceId: string; tool: string | null; runId: string | null; callId: string | null; detail: string | null; at: bigint }): AlertSignal {
  return {
    id: row.id,
    projectId: row.projectId,
    kind: row.kind as SignalKind,
    sourceId: row.sourceId,
    tool: row.tool,
    runId: row.runId,
    callId: row.callId,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
    at: Number(row.at),
  };
}

/** What an attempt writes on its delivery row, and on the rows of a group that settle with it. */
function attemptColumns(result: AttemptResult) {
  return {
    status: result.status,
    attempts: result.attempts,
    nextAttemptAt: BigInt(result.nextAttemptAt),
    lastCode: result.lastCode,
    lastError: result.lastError,
    deliveredAt: result.deliveredAt === null ? null : BigInt(result.deliveredAt),
  };
}
