import type { RunBudgetWire } from "../contract/budgets";
import type { RunBudgetView } from "../server/multistep/run-budget-service";

export function toRunBudget(view: RunBudgetView): RunBudgetWire {
  return { ...view, updatedAt: view.updatedAt === null ? null : new Date(view.updatedAt).toISOString() };
}
