import type { BudgetPolicy } from "./policy";

/** Amounts are kept in millionths of the currency: sums of integers, never drifting floats. */
export const MICROS = 1_000_000;

export function toMicros(amount: number): number {
  return Math.round(amount * MICROS);
}

export function fromMicros(micros: number): number {
  return micros / MICROS;
}

/** What one run has spent on budgeted tools, and an operator's raise of its limits (null: the policy's). */
export interface RunSpend {
  calls: number;
  costMicros: number;
  currency: string;
  maxCalls: number | null;
  maxCostMicros: number | null;
}

/** What one write adds to its run's counter, and the limits it must stay within. */
export interface BudgetCharge {
  calls: 0 | 1;
  costMicros: number;
  currency: string;
  /** The policy's limits; a raise stored on the run wins. */
  maxCalls: number | null;
  maxCostMicros: number | null;
  /** false: count and never refuse (shadow mode, costs reported on complete). */
  enforce: boolean;
}

/** The limits and what was spent when a begin was refused, as the answer and the ledger carry them. */
export interface BudgetStatus {
  exceeded: "calls" | "cost";
  calls: number;
  maxCalls: number | null;
  spent: number;
  maxCost: number | null;
  currency: string;
}

/** A run's spend before its first budgeted execution. */
export function noSpend(charge: Pick<BudgetCharge, "currency">): RunSpend {
  return { calls: 0, costMicros: 0, currency: charge.currency, maxCalls: null, maxCostMicros: null };
}

/** The charge of one execution under a budget policy. */
export function executionCharge(budget: BudgetPolicy, enforce: boolean): BudgetCharge {
  return {
    calls: 1,
    costMicros: toMicros(budget.costPerExecution),
    currency: budget.currency,
    maxCalls: budget.maxCallsPerRun,
    maxCostMicros: budget.maxCostPerRun === null ? null : toMicros(budget.maxCostPerRun),
    enforce,
  };
}

/** A cost reported on complete: counted, never refused (the tool has already run). */
export function reportedCharge(budget: BudgetPolicy, costMicros: number): BudgetCharge {
  return { ...executionCharge(budget, false), calls: 0, costMicros };
}

/**
 * Null when the charge fits the run's budget. An execution is refused when it would make more calls
 * than allowed, or when the run has already spent its limit (or this execution's fixed cost would
 * pass it). Charges that add no call (reported costs) are never refused.
 */
export function budgetRefusal(spent: RunSpend | null, charge: BudgetCharge): BudgetStatus | null {
  const exceeded = budgetExceeded(spent, charge);
  if (exceeded === null) return null;
  const maxCostMicros = spent?.maxCostMicros ?? charge.maxCostMicros;
  return {
    exceeded,
    calls: spent?.calls ?? 0,
    maxCalls: spent?.maxCalls ?? charge.maxCalls,
    spent: fromMicros(spent?.costMicros ?? 0),
    maxCost: maxCostMicros === null ? null : fromMicros(maxCostMicros),
    currency: spent?.currency ?? charge.currency,
  };
}

/**
 * Which limit the charge would pass (budgetRefusal's rule), or null. It uses nothing outside
 * itself: the SQLite writer thread runs its source inside the charged write's transaction.
 */
export function budgetExceeded(spent: RunSpend | null, charge: BudgetCharge): BudgetStatus["exceeded"] | null {
  if (charge.calls === 0) return null;
  const calls = spent?.calls ?? 0;
  const costMicros = spent?.costMicros ?? 0;
  const maxCalls = spent?.maxCalls ?? charge.maxCalls;
  const maxCostMicros = spent?.maxCostMicros ?? charge.maxCostMicros;
  if (maxCalls !== null && calls + charge.calls > maxCalls) return "calls";
  if (maxCostMicros !== null && (costMicros >= maxCostMicros || costMicros + charge.costMicros > maxCostMicros)) return "cost";
  return null;
}

function money(amount: number): string {
  return amount.toFixed(2);
}

/** Words a model acts on: what was spent, what the limit is, and to stop. */
export function describeBudget(status: BudgetStatus): string {
  if (status.exceeded === "calls") {
    return `stop: this run has made ${status.calls} tool calls of ${status.maxCalls} allowed. Do not call more tools; report what you have to the user.`;
  }
  return `stop: this run has spent ${money(status.spent)} ${status.currency} of ${money(status.maxCost ?? 0)}. Do not call more tools; report what you have to the user.`;
}
