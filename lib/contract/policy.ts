import { z } from "zod";
import type { PolicyOverrides, ToolPolicy } from "../core/policy";
import { JSON_POINTER } from "../core/scope-from";

/**
 * The policy model (DESIGN.md, "Policies"): the one zod schema that validates operator input,
 * documents the admin API and (later) drives the form. lib/core keeps plain TS types; the
 * assertions at the bottom fail the type check the moment the two disagree.
 */
const fieldName = z.string().min(1).max(200);
const fieldList = z.array(fieldName).max(100);
const DAY_SECONDS = 86_400;

export const EffectSchema = z
  .enum(["read", "write", "async"])
  .describe("read: recorded, never deduped; write: deduped; async: deduped, expired leases answer verify");
export const KeyStrategySchema = z
  .enum(["step", "scope", "args", "toolCallId"])
  .describe("What the key is derived from (DESIGN.md, Key strategies)");

const scalarFields = {
  effect: EffectSchema,
  keyStrategy: KeyStrategySchema,
  ignoreFields: fieldList.describe("Argument fields dropped before fingerprinting (replaces the inherited list)"),
  onDuplicate: z.enum(["replay", "refuse", "execute"]).describe("replay (coalesce), refuse, or execute (always run)"),
  onArgsMismatch: z.enum(["replay", "reject"]).describe("Same key, other args: replay and flag it, or answer conflict"),
  bypass: z.enum(["never", "approval", "allow"]).describe("Whether a completed key may run again, and with whose sign-off"),
  ttlSeconds: z.number().int().min(1).max(365 * DAY_SECONDS).describe("How long an outcome is kept and replayed"),
  acceptedTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(365 * DAY_SECONDS)
    .describe("How long an accepted (long-running, unfinished) operation is kept and replayed by its operationId"),
  leaseSeconds: z.number().int().min(1).max(3_600).describe("How long an attempt may run without a heartbeat"),
  leaseGraceSeconds: z
    .number()
    .int()
    .min(0)
    .max(3_600)
    .describe("Liveness: an attempt is taken over (or answered verify) only once it has been silent for the lease plus this grace; a late beat before that renews its lease"),
  cacheFailures: z.boolean().describe("Permanent failures replay; retryable ones never do"),
  redactFields: fieldList.describe("Fields masked (at any depth) before args or results are stored"),
  onPermanentFailure: z
    .enum(["none", "compensate"])
    .describe("compensate: a permanent failure of this tool aborts the run, which runs its compensation plan"),
  scopeFrom: z
    .array(z.string().max(200).regex(JSON_POINTER, "a JSON pointer such as /orderId"))
    .max(10)
    .describe("JSON pointers into the args (e.g. /orderId) whose values become the call's scope when it names none: re-plans of the same order dedupe"),
  keepHeaders: z
    .array(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "a header name, or a prefix ending in * (x-*)"))
    .max(100)
    .describe("HTTP tools (the middleware and /gw; a route is a tool named e.g. `POST /v1/refunds`): the response headers a replay reproduces, `x-*` for a prefix; Set-Cookie and hop-by-hop headers never"),
  preview: z
    .enum(["none", "required", "approve"])
    .describe("required: a first execution needs a preview token (POST /api/v1/calls/preview); approve: and an operator's approval of that preview"),
  toolErrors: z
    .enum(["permanent", "retryable"])
    .describe("MCP gateway: an upstream tool's own error result (isError) is a permanent failure (recorded; replays under cacheFailures) or a retryable one (released: the next call runs it again)"),
  mode: z
    .enum(["enforce", "shadow"])
    .describe("shadow: the gate records what it would have decided (would_replay, would_block, …) and answers execute, as if it were not there; enforce: its decision is the answer"),
};

const retryFields = {
  maxAttempts: z.number().int().min(1).max(100),
  initialDelayMs: z.number().int().min(0).max(3_600_000),
  backoffFactor: z.number().min(1).max(10),
  maxDelayMs: z.number().int().min(0).max(DAY_SECONDS * 1000),
};

const loopFields = {
  enabled: z.boolean(),
  repeats: z.number().int().min(2).max(20).describe("How many times in a row a cycle must repeat to trip"),
  maxCycleLength: z.number().int().min(1).max(10).describe("Longest cycle of call signatures looked for"),
  action: z.enum(["block", "warn"]).describe("block: answer `blocked`; warn: decide as usual and flag it"),
};

const stormFields = {
  windowSeconds: z.number().int().min(1).max(DAY_SECONDS),
  minHits: z.number().int().min(1).max(1_000_000),
  factor: z.number().min(1).max(1_000),
  absoluteMinHits: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .describe("Without a baseline (the gate's first windows): dedup hits a window needs to be a storm"),
  absoluteDedupRate: z
    .number()
    .min(0)
    .max(1)
    .describe("Without a baseline: the share of the window's begins (0–1) those hits must also be"),
};

const budgetFields = {
  maxCallsPerRun: z.number().int().min(1).max(1_000_000).nullable().describe("Executions a run may make (null: no limit)"),
  maxCostPerRun: z.number().min(0).max(1e12).nullable().describe("What a run may spend, in `currency` (null: no limit)"),
  currency: z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code such as USD").describe("The currency of the limit and of the costs counted against it"),
  costPerExecution: z.number().min(0).max(1e9).describe("Charged to the run each time the tool executes; costs reported on complete are added"),
};

const mcpFields = {
  runWindowSeconds: z
    .number()
    .int()
    .min(1)
    .max(DAY_SECONDS)
    .describe("MCP calls that name no run (no _meta idemgate/runId, no Idemgate-Run-Id header) dedupe within this window across sessions, reconnects and restarts of the same API key or stdio entrypoint; never longer than ttlSeconds"),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(3_600)
    .describe("MCP gateway: the longest it waits for an upstream's answer to a tools/call (progress the client asked for restarts the wait, within this bound); never longer than the client waits (its _meta idemgate/timeoutMs, else the SDKs' 60 s). Then the outcome is unknown"),
};

export const RetryPolicySchema = z.object(retryFields).strict().meta({ id: "RetryPolicy", description: "Retry advice the SDK follows for transient failures" });
export const LoopPolicySchema = z.object(loopFields).strict().meta({ id: "LoopPolicy", description: "Per-run loop detection over call signatures" });
export const StormPolicySchema = z.object(stormFields).strict().meta({ id: "StormPolicy", description: "Retry-storm detection" });
export const BudgetPolicySchema = z
  .object(budgetFields)
  .strict()
  .meta({ id: "BudgetPolicy", description: "Per-run budget: a begin that would pass a limit answers blocked (reason budget_exceeded); replays cost nothing" });

export const McpPolicySchema = z.object(mcpFields).strict().meta({ id: "McpPolicy", description: "MCP gateway settings: how long a call without a run identity dedupes" });

/** A complete, effective policy. */
export const ToolPolicySchema = z
  .object({ ...scalarFields, retry: RetryPolicySchema, loop: LoopPolicySchema, storm: StormPolicySchema, budget: BudgetPolicySchema, mcp: McpPolicySchema })
  .strict()
  .superRefine((policy, ctx) => {
    if (policy.retry.maxDelayMs < policy.retry.initialDelayMs) {
      ctx.addIssue({
        code: "custom",
        path: ["retry", "maxDelayMs"],
        message: `retry.maxDelayMs (${policy.retry.maxDelayMs}) must be at least retry.initialDelayMs (${policy.retry.initialDelayMs})`,
      });
    }
  })
  .meta({ id: "ToolPolicy", description: "A complete, effective tool policy" });

/**
 * One layer: the fields a tool's own policy (or the project's `*` policy) sets. Unknown fields are
 * rejected, so a misspelt field is a 400, not a silently ignored setting.
 */
export const PolicyOverridesSchema = z
  .object(scalarFields)
  .partial()
  .extend({
    retry: z.object(retryFields).strict().partial().optional(),
    loop: z.object(loopFields).strict().partial().optional(),
    storm: z.object(stormFields).strict().partial().optional(),
    budget: z.object(budgetFields).strict().partial().optional(),
    mcp: z.object(mcpFields).strict().partial().optional(),
  })
  .strict()
  .meta({
    id: "PolicyOverrides",
    description: "Fields this layer sets; the rest is inherited (built-in default ← `*` ← tool), nested objects field by field",
  });

type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const toolPolicyAgrees: Agree<z.infer<typeof ToolPolicySchema>, ToolPolicy> = true;
const overridesAgree: Agree<z.infer<typeof PolicyOverridesSchema>, PolicyOverrides> = true;
void toolPolicyAgrees;
void overridesAgree;
