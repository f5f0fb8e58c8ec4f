import { z } from "zod";

/** Budgets, operators' side: one run's spend and an operator's raise of its limits. */
export const RaiseRunBudgetRequestSchema = z
  .object({
    maxCallsPerRun: z.number().int().min(1).max(1_000_000).nullable().optional().describe("This run's call limit from now on (null: the policy's again)"),
    maxCostPerRun: z.number().min(0).max(1e12).nullable().optional().describe("This run's cost limit from now on, in the budget's currency (null: the policy's again)"),
    reason: z.string().trim().min(1).max(2_000).describe("Why: kept in the audit log"),
  })
  .strict()
  .refine((body) => body.maxCallsPerRun !== undefined || body.maxCostPerRun !== undefined, {
    message: "give maxCallsPerRun or maxCostPerRun",
    path: ["maxCallsPerRun"],
  })
  .meta({ id: "RaiseRunBudgetRequest", description: "Raise (or lower) one run's budget; takes effect on its next begin" });

export const RunBudgetSchema = z
  .object({
    runId: z.string(),
    calls: z.number().int().describe("Executions counted against the budget"),
    spent: z.number().describe("What the run has spent, in `currency`"),
    currency: z.string(),
    maxCallsPerRun: z.number().int().nullable().describe("An operator's limit for this run (null: the tool's policy decides)"),
    maxCostPerRun: z.number().nullable().describe("An operator's cost limit for this run (null: the tool's policy decides)"),
    updatedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "RunBudget", description: "One run's spend against its budget; limits an operator set for it" });

export type RaiseRunBudgetRequest = z.infer<typeof RaiseRunBudgetRequestSchema>;
export type RunBudgetWire = z.infer<typeof RunBudgetSchema>;
