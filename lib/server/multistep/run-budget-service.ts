import { fromMicros, toMicros } from "../../core/budget";
import type { RaiseRunBudgetRequest } from "../../contract/budgets";
import type { RunBudgetRepository, RunBudgetRow } from "../../store/prisma/run-budget-repository";
import { type Actor, auditEntry } from "../operators/operator-audit";
import type { PolicySource } from "../policies/policy-source";
import type { KnownRuns } from "./known-runs";

/** One run's budget as operators see it: its spend, and the limits an operator set for it. */
export interface RunBudgetView {
  runId: string;
  calls: number;
  spent: number;
  currency: string;
  maxCallsPerRun: number | null;
  maxCostPerRun: number | null;
  updatedAt: number | null;
}

/**
 * Budgets, operators' side: read a run's spend and raise its limits. A raise is stored on the run's
 * counter row, which every claim reads in its own transaction, so it holds from the next begin on
 * whichever instance serves it. Every raise is audited with the limits before and after.
 */
export class RunBudgetService {
  constructor(
    private readonly runs: RunBudgetRepository,
    private readonly known: KnownRuns,
    private readonly policies: PolicySource,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The run's spend and limits; 404 for a run id no call of this project used (nothing is stored for it). */
  async get(projectId: string, runId: string): Promise<RunBudgetView> {
    await this.known.require(projectId, runId);
    const row = await this.runs.find(projectId, runId);
    if (row) return toView(row);
    const { policy } = await this.policies.forTool(projectId, "*");
    return { runId, calls: 0, spent: 0, currency: policy.budget.currency, maxCallsPerRun: null, maxCostPerRun: null, updatedAt: null };
  }

  async raise(projectId: string, runId: string, request: RaiseRunBudgetRequest, actor: Actor): Promise<RunBudgetView> {
    const before = await this.get(projectId, runId);
    const now = this.clock();
    const limits = {
      ...(request.maxCallsPerRun !== undefined ? { maxCalls: request.maxCallsPerRun } : {}),
      ...(request.maxCostPerRun !== undefined ? { maxCostMicros: request.maxCostPerRun === null ? null : toMicros(request.maxCostPerRun) } : {}),
    };
    const detail = {
      reason: request.reason,
      before: { maxCallsPerRun: before.maxCallsPerRun, maxCostPerRun: before.maxCostPerRun },
      after: {
        maxCallsPerRun: request.maxCallsPerRun === undefined ? before.maxCallsPerRun : request.maxCallsPerRun,
        maxCostPerRun: request.maxCostPerRun === undefined ? before.maxCostPerRun : request.maxCostPerRun,
      },
      spent: { calls: before.calls, amount: before.spent, currency: before.currency },
    };
    const audit = auditEntry(actor, projectId, "run.budget_raised", { type: "run", id: runId }, detail, now);
    return toView(await this.runs.setLimits(projectId, runId, before.currency, limits, audit, now));
  }
}

function toView(row: RunBudgetRow): RunBudgetView {
  return {
    runId: row.runId,
    calls: row.calls,
    spent: fromMicros(row.costMicros),
    currency: row.currency,
    maxCallsPerRun: row.maxCalls,
    maxCostPerRun: row.maxCostMicros === null ? null : fromMicros(row.maxCostMicros),
    updatedAt: row.updatedAt,
  };
}
