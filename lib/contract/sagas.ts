import { z } from "zod";
import { ToolNameSchema } from "./tool-name";
import { ErrorInfoSchema } from "./v1";

/**
 * Sagas (DESIGN.md "Additions"): a run's abort and its compensation plan. Agents abort and run the
 * plan with their API key (app/api/v1/runs/**); operators abort, retry and resolve by hand from the
 * run page (app/api/v1/operator/projects/{projectId}/runs/{runId}/**).
 */
const isoTime = z.iso.datetime();
const reason = z.string().trim().min(1).max(2_000);

export const RUN_STATES = ["running", "compensating", "compensated", "compensation_failed"] as const;
export const STEP_STATUSES = ["pending", "running", "compensated", "failed", "resolved"] as const;
export const STEP_ACTIONS = ["retry", "resolve"] as const;

export const CompensationSchema = z
  .object({
    tool: ToolNameSchema.refine((tool) => tool !== "*", "`*` names the project's default policy, not a tool")
      .describe("The tool that undoes the call's effect, e.g. refund_charge"),
    args: z.unknown().optional().describe("Its arguments (stored redacted with the call's policy)"),
  })
  .strict()
  .meta({ id: "Compensation", description: "The action that undoes a succeeded call; runs as a gated call under `<key>:compensate` if the run aborts" });

export const AbortRunRequestSchema = z.object({ reason }).strict().meta({ id: "AbortRunRequest" });

export const CompensationBeginRequestSchema = z
  .object({ waitMs: z.number().int().min(0).max(10_000).optional().describe("Wait up to this long for another runner's live attempt") })
  .strict()
  .meta({ id: "CompensationBeginRequest" });

export const CompensationStepSchema = z
  .object({
    callId: z.string().describe("The call being undone"),
    key: z.string(),
    tool: z.string(),
    stepId: z.string().nullable(),
    completedAt: isoTime,
    compensation: CompensationSchema,
    compensationKey: z.string().describe("`<key>:compensate`: the undo's own key, and the idempotency key to pass downstream"),
    status: z.enum(STEP_STATUSES).describe("resolved: an operator recorded by hand that nothing is left to undo"),
    compensationCallId: z.string().nullable().describe("The undo's own call, once begun"),
    attempts: z.number().int(),
    error: ErrorInfoSchema.optional().describe("Why the undo failed permanently"),
    actions: z
      .array(z.enum(STEP_ACTIONS))
      .describe("What an operator may do with the step once the run is aborted: retry a failed undo; resolve by hand any step not done. Empty once done"),
  })
  .meta({ id: "CompensationStep" });

export const RunCompensationSchema = z
  .object({
    runId: z.string(),
    state: z.enum(RUN_STATES),
    abort: z
      .object({ reason: z.string(), abortedBy: z.string().describe("agent, policy or operator:<email>"), abortedAt: isoTime })
      .nullable(),
    steps: z.array(CompensationStepSchema).describe("In the order they run: newest completion first"),
    nextCallId: z.string().nullable().describe("The step a runner begins next; null when done or stopped by a failure"),
  })
  .meta({ id: "RunCompensation", description: "A run's saga state and compensation plan" });

export const ResolveCompensationSchema = z.object({ note: reason }).strict().meta({ id: "ResolveCompensation" });
export const RetryCompensationSchema = z.object({ reason }).strict().meta({ id: "RetryCompensation" });

export type RunCompensation = z.infer<typeof RunCompensationSchema>;
export type CompensationStepWire = z.infer<typeof CompensationStepSchema>;
