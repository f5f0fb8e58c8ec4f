import { z } from "zod";
import { displayNameSchema } from "./tool-name";
import { PolicyOverridesSchema, ToolPolicySchema } from "./policy";

/**
 * The operator-facing policy API (admin token for now). Routes parse with these, the OpenAPI
 * document is generated from them, tests parse responses with them.
 */
const isoTime = z.iso.datetime();
const reason = z.string().trim().min(1).max(1_000).describe("Why: kept in the revision history");
const author = displayNameSchema(200).describe("Who made the change (defaults to `admin`)");
const expectedVersion = z
  .number()
  .int()
  .min(0)
  .describe("Optimistic lock: the tool's current `ownVersion` (0 when it has none); a mismatch is 409 version_conflict");

export const PolicyOriginSchema = z
  .enum(["builtin", "project", "tool"])
  .describe("builtin: Idemgate's default; project: the `*` policy; tool: the tool's own policy");

export const EffectivePolicyResponseSchema = z
  .object({
    tool: z.string(),
    version: z.number().int().describe("The revision decisions for this tool are taken under (0: built-in defaults)"),
    ownVersion: z.number().int().describe("The revision of this tool's own layer (0: never set)"),
    policy: ToolPolicySchema,
    overrides: PolicyOverridesSchema.nullable().describe("This tool's own layer; null when it has none"),
    sources: z.record(z.string(), PolicyOriginSchema).describe("For every leaf field (`retry.maxAttempts`, …), where its value comes from"),
  })
  .meta({ id: "EffectivePolicy" });

export const ToolTrafficSchema = z
  .object({
    calls: z.number().int(),
    executions: z.number().int(),
    replays: z.number().int().describe("replay only: answered with the stored outcome"),
    dedupHits: z.number().int().default(0).describe("replay + in_progress + refused: the tool did not run again (the overview's Dedup hits)"),
    wouldPrevent: z.number().int().optional().describe("Shadow mode: executions the gate would have prevented as duplicates (would_replay, would_wait, would_refuse, would_conflict)"),
  })
  .meta({ id: "ToolTraffic", description: "Begin decisions in the last 24 h" });

export const ToolSummarySchema = z
  .object({
    tool: z.string(),
    hasPolicy: z.boolean().describe("Whether the tool has its own (non-empty) layer"),
    ownVersion: z.number().int(),
    overrides: PolicyOverridesSchema.nullable(),
    firstSeenAt: isoTime.nullable().describe("First begin for the tool; null for a tool configured before it was called"),
    updatedAt: isoTime.nullable(),
    updatedBy: z.string().nullable(),
    traffic: ToolTrafficSchema,
  })
  .meta({ id: "ToolSummary" });

export const PolicyListResponseSchema = z
  .object({
    projectId: z.string(),
    trafficSince: isoTime,
    tools: z.array(ToolSummarySchema).describe("The `*` layer first, then every tool seen or configured, by name"),
  })
  .meta({ id: "PolicyList" });

export const PolicyChangeSchema = z
  .object({ path: z.string(), before: z.unknown().optional(), after: z.unknown().optional() })
  .meta({ id: "PolicyChange", description: "One leaf field; `before`/`after` absent = inherited" });

export const PolicyRevisionSchema = z
  .object({
    version: z.number().int().describe("Project-wide revision number"),
    tool: z.string(),
    author: z.string(),
    reason: z.string(),
    at: isoTime,
    before: PolicyOverridesSchema.nullable(),
    after: PolicyOverridesSchema.nullable(),
    changes: z.array(PolicyChangeSchema),
    restoredFrom: z.number().int().nullable().describe("The revision this one restored, if any"),
  })
  .meta({ id: "PolicyRevision" });

export const PolicyHistoryResponseSchema = z
  .object({ tool: z.string(), revisions: z.array(PolicyRevisionSchema).describe("Newest first") })
  .meta({ id: "PolicyHistory" });

export const PolicyUpdateRequestSchema = z
  .object({
    policy: PolicyOverridesSchema.describe("The tool's whole own layer ({} = inherit everything)"),
    reason,
    author: author.optional(),
    expectedVersion: expectedVersion.optional(),
  })
  .strict()
  .meta({ id: "PolicyUpdateRequest" });

export const PolicyRestoreRequestSchema = z
  .object({ reason, author: author.optional(), expectedVersion: expectedVersion.optional() })
  .strict()
  .meta({ id: "PolicyRestoreRequest" });

export const PolicyChangeResponseSchema = z
  .object({ revision: PolicyRevisionSchema, effective: EffectivePolicyResponseSchema })
  .meta({ id: "PolicyChangeResult" });

export const SimulateRequestSchema = z
  .object({
    policy: PolicyOverridesSchema.describe("Draft of the tool's own layer"),
    sampleSize: z.number().int().min(1).max(5_000).default(500).describe("How many of the tool's latest begins to replay"),
  })
  .strict()
  .meta({ id: "SimulateRequest" });

export const DecisionTallySchema = z
  .object({
    executed: z.number().int(),
    deduped: z.number().int().describe("replay or in_progress: the tool did not run"),
    refused: z.number().int(),
    conflicts: z.number().int(),
    blocked: z.number().int(),
    approvalRequired: z.number().int().default(0).describe("a resend asked for without an approved token"),
    previewRequired: z.number().int().default(0).describe("preview_required: a dry run (and maybe an operator's approval) comes first"),
    loopWarnings: z.number().int(),
    rejected: z.number().int().describe("400: the call lacks what the key strategy needs"),
  })
  .meta({ id: "DecisionTally" });

export const SimulateResponseSchema = z
  .object({
    tool: z.string(),
    sampled: z.number().int(),
    from: isoTime.nullable(),
    to: isoTime.nullable(),
    policy: ToolPolicySchema.describe("The draft's effective policy"),
    simulated: DecisionTallySchema.describe("What the draft would have decided, calls replayed in order"),
    baseline: DecisionTallySchema.describe(
      "What the policy in force decides over the same calls, replayed the same way: what `simulated` is compared with, so a draft equal to the policy in force predicts no change",
    ),
    actual: DecisionTallySchema.describe("What was decided, over the same calls as `simulated` (shadow mode: what enforce would have answered)"),
    drift: z
      .object({
        replayedDifferently: z.number().int().describe("Sampled calls the policy in force, replayed, decides otherwise than they were decided"),
        otherRevision: z.number().int().describe("Sampled calls decided under another revision of the policy than the one in force"),
        revisions: z.array(z.number().int()).describe("Those revisions"),
      })
      .meta({ id: "SimulationDrift" }),
    revision: z.number().int().nullable().describe("The revision in force, the one `baseline` replays"),
    unreplayable: z
      .array(z.object({ reason: z.string(), count: z.number().int() }).meta({ id: "UnreplayableCalls" }))
      .default([])
      .describe("Sampled calls left out of both tallies because history lacks what predicting them needs, by reason"),
    assumedOutcomes: z
      .number()
      .int()
      .default(0)
      .describe("Sampled calls the draft would run that never ran: each is assumed to end like the attempt it was deduplicated against"),
  })
  .meta({ id: "SimulateResult" });

export type EffectivePolicyResponse = z.infer<typeof EffectivePolicyResponseSchema>;
export type ToolSummary = z.infer<typeof ToolSummarySchema>;
export type PolicyListResponse = z.infer<typeof PolicyListResponseSchema>;
export type PolicyRevision = z.infer<typeof PolicyRevisionSchema>;
export type PolicyHistoryResponse = z.infer<typeof PolicyHistoryResponseSchema>;
export type PolicyChangeResponse = z.infer<typeof PolicyChangeResponseSchema>;
export type SimulateRequest = z.infer<typeof SimulateRequestSchema>;
export type SimulateResponse = z.infer<typeof SimulateResponseSchema>;
export type DecisionTally = z.infer<typeof DecisionTallySchema>;
