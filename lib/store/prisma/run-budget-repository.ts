import type { AuditEntryRow } from "../ports/operator-store";
import type { Db } from "./client";

export interface RunBudgetRow {
  projectId: string;
  runId: string;
  calls: number;
  costMicros: number;
  currency: string;
  maxCalls: number | null;
  maxCostMicros: number | null;
  updatedAt: number;
}

/** The limits an operator sets on one run; undefined keeps what is stored. */
export interface RunBudgetLimits {
  maxCalls?: number | null;
  maxCostMicros?: number | null;
}

type Stored = NonNullable<Awaited<ReturnType<Db["runBudget"]["findUnique"]>>>;

/** Budgets, operators' side, through Prisma Client (off the hot path: lib/store/hot counts the spend). */
export class RunBudgetRepository {
  constructor(private readonly prisma: Db) {}

  async find(projectId: string, runId: string): Promise<RunBudgetRow | null> {
    const row = await this.prisma.runBudget.findUnique({ where: { projectId_runId: { projectId, runId } } });
    return row ? fromStored(row) : null;
  }

  /**
   * Sets the run's limits and writes the audit entry in one transaction. The row is created when
   * the run has not spent anything yet, so a raise before the first call holds too; the gate reads
   * it inside the next claim's transaction.
   */
  async setLimits(projectId: string, runId: string, currency: string, limits: RunBudgetLimits, audit: AuditEntryRow, at: number): Promise<RunBudgetRow> {
    return this.prisma.$transaction(async (tx) => {
      const set = {
        ...(limits.maxCalls !== undefined ? { maxCalls: limits.maxCalls } : {}),
        ...(limits.maxCostMicros !== undefined ? { maxCostMicros: limits.maxCostMicros === null ? null : BigInt(limits.maxCostMicros) } : {}),
        updatedAt: BigInt(at),
      };
      const row = await tx.runBudget.upsert({
        where: { projectId_runId: { projectId, runId } },
        create: { projectId, runId, currency, calls: 0, costMicros: 0n, ...set },
        update: set,
      });
      await tx.auditEntry.create({ data: { ...audit, at: BigInt(audit.at) } });
      return fromStored(row);
    });
  }
}

function fromStored(row: Stored): RunBudgetRow {
  return {
    projectId: row.projectId,
    runId: row.runId,
    calls: row.calls,
    costMicros: Number(row.costMicros),
    currency: row.currency,
    maxCalls: row.maxCalls,
    maxCostMicros: row.maxCostMicros === null ? null : Number(row.maxCostMicros),
    updatedAt: Number(row.updatedAt),
  };
}
