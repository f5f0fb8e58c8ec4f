import { z } from "zod";
import { IdentifierSchema, ToolNameSchema } from "./tool-name";

/**
 * The agent-facing wire contract (DESIGN.md). Route handlers parse with these, the OpenAPI
 * document is generated from them, and the SDK and tests parse responses with them.
 */
/** Ids a caller names (run, step, scope, tool call, agent): NFC, nothing invisible (tool-name.ts). */
const id = IdentifierSchema;
const isoTime = z.iso.datetime();

/** Record states; `accepted` = a long-running operation started and not finished (async operations). */
export const RECORD_STATUSES = ["in_progress", "succeeded", "failed", "released", "accepted"] as const;
const operationId = z.string().min(1).max(500).describe("The long-running operation's id, as the tool's downstream service named it");
const statusUrl = z.url().max(2_000).describe("Where the operation's status can be polled");

export const RetryAdviceSchema = z
  .object({
    maxAttempts: z.number().int(),
    initialDelayMs: z.number().int(),
    backoffFactor: z.number(),
    maxDelayMs: z.number().int(),
  })
  .meta({ id: "RetryAdvice", description: "How the caller should back off from transient failures" });

export const ErrorInfoSchema = z
  .object({
    message: z.string().max(10_000),
    retryable: z.boolean(),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    result: z
      .unknown()
      .optional()
      .describe("A permanent failure's own answer, kept and replayed with it (an HTTP tool's 4xx response: status, headers, body); masked as a result is"),
  })
  .meta({ id: "ToolError" });

export const LoopWarningSchema = z
  .object({ reason: z.literal("loop_detected"), pattern: z.array(z.string()), repeats: z.number().int() })
  .meta({ id: "LoopWarning", description: "The run's loop detector tripped under `loop.action: warn`: the decision stands, flagged" });

/** Present on a decision only when the loop detector flagged it. */
const loopWarning = LoopWarningSchema.optional();

export const BeginRequestSchema = z
  .object({
    tool: ToolNameSchema.refine((tool) => tool !== "*", "`*` names the project's default policy, not a tool").describe(
      "Tool name, e.g. charge_card (NFC-normalised; control and zero-width characters are refused)",
    ),
    runId: id.describe("The root run: subagents share it"),
    stepId: id.optional().describe("Logical step, stable across re-plans"),
    scope: id.optional().describe("Business entity the action is about, e.g. order:123"),
    toolCallId: id.optional().describe("The model's tool-call id (recorded; keyed on only by the toolCallId strategy)"),
    agentId: id.optional().describe("The (sub)agent making the call"),
    args: z.unknown().optional().describe("The tool's arguments (fingerprinted, never trusted as the key)"),
    waitMs: z.number().int().min(0).max(10_000).optional().describe("Wait up to this long for a live attempt's outcome"),
    bypassToken: z.string().min(1).max(500).optional().describe("Single-use token from an approved resend request"),
    previewToken: z.string().min(1).max(500).optional().describe("Single-use token from POST /api/v1/calls/preview, for tools under `preview: required|approve`"),
    bypass: z
      .object({ reason: z.string().trim().min(1).max(2_000) })
      .strict()
      .optional()
      .describe("Ask to run a completed call again: under `bypass: approval` answers approval_required with a resend request"),
  })
  .strict()
  .meta({ id: "BeginRequest" });

export const ExecuteDecisionSchema = z
  .object({
    decision: z.literal("execute"),
    callId: z.string(),
    key: z.string(),
    leaseToken: z.string(),
    leaseExpiresAt: isoTime,
    attempt: z.number().int(),
    recovered: z.boolean(),
    retry: RetryAdviceSchema,
    replayable: z
      .boolean()
      .optional()
      .describe("false when the tool's policy never replays its outcome (effect read, onDuplicate execute or refuse): a large result need not be stored whole"),
    keepHeaders: z.array(z.string()).optional().describe("HTTP tools: the response headers the tool's policy keeps for replays (policy keepHeaders)"),
    shadowDecision: z
      .string()
      .optional()
      .describe("Shadow mode: what the gate would have answered under enforce (would_replay, would_refuse, would_block, …); run the tool anyway"),
    loopWarning,
  })
  .meta({ id: "ExecuteDecision", description: "You hold the lease: run the tool with `key` as its idempotency key, then complete" });

export const ReplayDecisionSchema = z
  .object({
    decision: z.literal("replay"),
    callId: z.string(),
    key: z.string(),
    status: z.enum(["succeeded", "failed", "accepted"]).describe("`accepted`: the operation was started and has not finished: poll `operationId`"),
    result: z.unknown().optional(),
    error: ErrorInfoSchema.optional(),
    operationId: operationId.optional(),
    statusUrl: statusUrl.optional(),
    firstSeenAt: isoTime,
    completedAt: isoTime,
    expiresAt: isoTime,
    replays: z.number().int(),
    argsMismatch: z.boolean(),
    loopWarning,
  })
  .meta({ id: "ReplayDecision", description: "Done before: the stored outcome; do not run" });

export const InProgressDecisionSchema = z
  .object({
    decision: z.literal("in_progress"),
    callId: z.string(),
    key: z.string(),
    retryAfterMs: z.number().int(),
    retry: RetryAdviceSchema,
    loopWarning,
  })
  .meta({ id: "InProgressDecision", description: "Another attempt holds a live lease" });

export const VerifyDecisionSchema = z
  .object({
    decision: z.literal("verify"),
    callId: z.string(),
    key: z.string(),
    leaseToken: z.string(),
    leaseExpiresAt: isoTime,
    attempt: z.number().int(),
    loopWarning,
  })
  .meta({ id: "VerifyDecision", description: "An earlier attempt vanished: check downstream with `key`, then complete or run" });

export const RefusedDecisionSchema = z
  .object({
    decision: z.literal("refused"),
    callId: z.string().optional().describe("The record that already did it; absent for run_aborted"),
    key: z.string(),
    original: z.object({ status: z.enum(["succeeded", "failed"]), completedAt: isoTime }).optional().describe("A duplicate under `onDuplicate: refuse`: the outcome it duplicates"),
    reason: z.enum(["run_aborted"]).optional().describe("run_aborted: the run was aborted (sagas); it takes no new forward steps, its undos still run"),
    message: z.string().optional().describe("run_aborted: words for the model"),
    loopWarning,
  })
  .meta({
    id: "RefusedDecision",
    description: "A duplicate under a `refuse` policy (`callId`, `original`), or a forward step of an aborted run (`reason: run_aborted`). Do not run the tool",
  });

export const ConflictDecisionSchema = z
  .object({ decision: z.literal("conflict"), callId: z.string(), key: z.string(), loopWarning })
  .meta({ id: "ConflictDecision" });

export const ApprovalRequiredDecisionSchema = z
  .object({ decision: z.literal("approval_required"), requestId: z.string() })
  .meta({ id: "ApprovalRequiredDecision" });

export const PreviewRequiredDecisionSchema = z
  .object({
    decision: z.literal("preview_required"),
    key: z.string(),
    mode: z.enum(["required", "approve"]).describe("approve: an operator must approve the preview before its token is released"),
    argsFingerprint: z.string().describe("The preview must be of exactly these args"),
  })
  .meta({
    id: "PreviewRequiredDecision",
    description: "Run the tool's dry run, POST its summary and affected resources to /api/v1/calls/preview with the same call, then begin again with the previewToken",
  });

export const BudgetStatusSchema = z
  .object({
    exceeded: z.enum(["calls", "cost"]).describe("Which limit the call would pass"),
    calls: z.number().int().describe("Executions the run has made"),
    maxCalls: z.number().int().nullable(),
    spent: z.number().describe("What the run has spent, in `currency`"),
    maxCost: z.number().nullable(),
    currency: z.string(),
  })
  .meta({ id: "BudgetStatus", description: "A run's budget when a begin was refused: what was spent and what the limit is" });

export const BlockedDecisionSchema = z
  .object({
    decision: z.literal("blocked"),
    reason: z
      .enum(["loop_detected", "budget_exceeded"])
      .describe("loop_detected: the run repeats a cycle of calls; budget_exceeded: the run has spent its budget (`budget`, `message`)"),
    pattern: z.array(z.string()).describe("loop_detected: the repeated cycle (tool names, oldest first); empty for budget_exceeded"),
    repeats: z.number().int().describe("loop_detected: how many times in a row; 0 for budget_exceeded"),
    message: z.string().optional().describe("budget_exceeded: words for the model, e.g. \"stop: this run has spent 20.00 USD of 20.00\""),
    budget: BudgetStatusSchema.optional(),
  })
  .meta({
    id: "BlockedDecision",
    description: "The run was stopped: a cycle of calls (`pattern`) came `repeats` times in a row, or its budget is spent. Do not run the tool",
  });

export const BeginResponseSchema = z
  .discriminatedUnion("decision", [
    ExecuteDecisionSchema,
    ReplayDecisionSchema,
    InProgressDecisionSchema,
    VerifyDecisionSchema,
    RefusedDecisionSchema,
    ConflictDecisionSchema,
    ApprovalRequiredDecisionSchema,
    BlockedDecisionSchema,
    PreviewRequiredDecisionSchema,
  ])
  .meta({ id: "BeginResponse" });

export type BeginDecisionName = z.infer<typeof BeginResponseSchema>["decision"];

/**
 * Every decision a begin can answer, read off the response union above: the single list the calls
 * filter, the operator API's query schema and the OpenAPI document share, so a new decision can
 * never be answered by the gate and refused by the filter.
 */
export const BEGIN_DECISIONS = BeginResponseSchema.options.map((option) => option.shape.decision.value) as unknown as readonly [
  BeginDecisionName,
  ...BeginDecisionName[],
];
export const BeginDecisionNameSchema = z.enum(BEGIN_DECISIONS).meta({ id: "BeginDecisionName", description: "A begin's decision" });

const leaseToken = z.string().min(1).max(200);
/** A final outcome names its lease, or (finishing an accepted operation) the operation. */
const finalCredential = {
  check: z
    .enum(["found", "not_found"])
    .optional()
    .describe("Status checks: after verify, what the tool's checker found downstream (found: this outcome was found, not run; not_found: the tool ran). Kept on the ledger"),
  leaseToken: leaseToken.optional().describe("The attempt's lease; may be left out when `operationId` finishes an accepted operation"),
  operationId: operationId.optional().describe("Finishes the accepted operation with this id (no lease needed)"),
};
const cost = z
  .object({
    amount: z.number().min(0).max(1e9),
    currency: z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code such as USD"),
  })
  .strict()
  .optional()
  .describe("Budgets: what this execution cost; added to the run's spend when its currency is the budget's")
  .meta({ id: "Cost" });
const hasCredential = (body: { leaseToken?: string; operationId?: string }) => body.leaseToken !== undefined || body.operationId !== undefined;
const credentialIssue = { message: "give `leaseToken` (or `operationId` to finish an accepted operation)", path: ["leaseToken"] };

export const CompleteRequestSchema = z
  .discriminatedUnion("outcome", [
    z
      .object({
        ...finalCredential,
        outcome: z.literal("succeeded"),
        result: z.unknown().optional(),
        cost,
        compensation: z
          .object({ tool: ToolNameSchema, args: z.unknown().optional() })
          .strict()
          .optional()
          .describe("Sagas: how to undo this call if the run aborts; runs as a gated call under `<key>:compensate`"),
      })
      .strict()
      .refine(hasCredential, credentialIssue),
    z.object({ ...finalCredential, outcome: z.literal("failed"), error: ErrorInfoSchema, cost }).strict().refine(hasCredential, credentialIssue),
    z
      .object({ leaseToken, outcome: z.literal("accepted"), operationId, statusUrl: statusUrl.optional(), cost })
      .strict()
      .describe("The tool started a long-running operation: begins replay its id until a final complete"),
  ])
  .meta({ id: "CompleteRequest" });

export const HeartbeatRequestSchema = z
  .object({
    leaseToken: z.string().min(1).max(200),
    extendSeconds: z.number().int().min(1).max(3_600).optional(),
  })
  .strict()
  .meta({ id: "HeartbeatRequest" });

/**
 * Status checks: the tool's checker ran after `verify` and could not tell whether the effect
 * happened. Nothing runs and no outcome is recorded; the ledger keeps `check: unknown` and the call
 * waits in the operators' queue (an operator resolves it with what they find downstream).
 */
export const CheckReportRequestSchema = z
  .object({
    leaseToken: z.string().min(1).max(200).describe("The verify attempt's lease"),
    outcome: z.literal("unknown").describe("found and not_found are reported by complete's `check`"),
    reason: z.string().trim().min(1).max(2_000).optional().describe("Why the checker could not tell (shown to operators)"),
  })
  .strict()
  .meta({ id: "CheckReportRequest" });

export const CallStatusSchema = z
  .object({
    callId: z.string(),
    key: z.string(),
    tool: z.string(),
    runId: z.string(),
    stepId: z.string().nullable(),
    scope: z.string().nullable(),
    agentId: z.string().nullable(),
    toolCallId: z.string().nullable(),
    status: z.enum(RECORD_STATUSES),
    attempt: z.number().int(),
    replays: z.number().int(),
    argsFingerprint: z.string(),
    result: z.unknown().optional(),
    error: ErrorInfoSchema.optional(),
    operationId: operationId.optional().describe("While `accepted`: the operation to poll"),
    statusUrl: statusUrl.optional(),
    firstSeenAt: isoTime,
    completedAt: isoTime.nullable(),
    leaseExpiresAt: isoTime.nullable(),
    expiresAt: isoTime,
  })
  .meta({ id: "CallStatus", description: "A call's record: for async tools, pollers and operators" });

export const HeartbeatResponseSchema = z
  .object({
    callId: z.string(),
    status: z.enum(RECORD_STATUSES),
    leaseExpiresAt: isoTime.nullable().describe("null once the attempt has completed: stop beating"),
  })
  .meta({ id: "HeartbeatResponse" });

export const ERROR_CODES = [
  "invalid_input",
  "invalid_json",
  "unauthorized",
  "forbidden",
  "not_found",
  "lease_lost",
  "version_conflict",
  "payload_too_large",
  "unsupported_media_type",
  "store_unavailable",
  "contention",
  "internal",
  // Resends and operators (lib/contract/resends.ts, lib/contract/operator.ts)
  "bypass_token_invalid",
  "bypass_token_mismatch",
  "bypass_token_used",
  "bypass_token_expired",
  "preview_token_invalid",
  "preview_token_mismatch",
  "preview_token_used",
  "preview_token_expired",
  "bypass_forbidden",
  "self_approval",
  "already_decided",
  "invalid_state",
  "already_exists",
  "csrf_rejected",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorResponseSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      retryable: z.boolean(),
      retryAfterSeconds: z.number().int().optional(),
      issues: z
        .array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string(), code: z.string() }))
        .optional(),
      requestId: z.string().optional(),
    }),
  })
  .meta({ id: "Error" });

export type BeginRequest = z.infer<typeof BeginRequestSchema>;
export type BeginResponse = z.infer<typeof BeginResponseSchema>;
export type CompleteRequest = z.infer<typeof CompleteRequestSchema>;
export type HeartbeatRequest = z.infer<typeof HeartbeatRequestSchema>;
export type CheckReportRequest = z.input<typeof CheckReportRequestSchema>;
export type CallStatus = z.infer<typeof CallStatusSchema>;
export type HeartbeatResponse = z.infer<typeof HeartbeatResponseSchema>;
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
