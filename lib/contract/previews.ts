import { z } from "zod";
import { BeginRequestSchema } from "./v1";

/**
 * Previews (DESIGN.md "Additions"): a destructive tool's dry run, posted by the agent, and the
 * single-use token that lets exactly the previewed call run once.
 */
const isoTime = z.iso.datetime();

export const PREVIEW_STATUSES = ["ready", "pending", "approved", "denied", "used"] as const;

export const CreatePreviewRequestSchema = BeginRequestSchema.pick({ tool: true, runId: true, stepId: true, scope: true, toolCallId: true, agentId: true, args: true })
  .extend({
    preview: z
      .object({
        summary: z.string().trim().min(1).max(5_000).describe("What the call would do, in a sentence a human can approve"),
        affected: z.array(z.string().min(1).max(500)).max(500).describe("The resources it would touch (ids, paths, emails)"),
      })
      .strict(),
  })
  .strict()
  .meta({ id: "CreatePreviewRequest", description: "The same call a begin would send, plus its dry run's preview" });

const previewFields = {
  previewId: z.string(),
  status: z.enum(PREVIEW_STATUSES).describe("ready/approved: a token is issued; pending: waits for an operator; denied; used"),
  mode: z.enum(["required", "approve"]),
  key: z.string().describe("The token is valid for this key only"),
  argsFingerprint: z.string().describe("… and for these args only"),
  tool: z.string(),
  runId: z.string(),
  summary: z.string(),
  affected: z.array(z.string()),
  expiresAt: isoTime.describe("Until then the preview may be approved and its token fetched"),
  decisionNote: z.string().nullable(),
};

export const PreviewSchema = z
  .object({
    ...previewFields,
    previewToken: z.string().optional().describe("Single use, short-lived; each read of a ready or approved preview issues a fresh one (the last one stops working). Begin with it."),
    tokenExpiresAt: isoTime.optional(),
  })
  .meta({ id: "Preview" });

export const OperatorPreviewSchema = z
  .object({
    ...previewFields,
    args: z.unknown().nullable().describe("The exact (redacted) arguments that would run"),
    requestedBy: z.string().describe("The id of the API key that asked"),
    requestedByName: z.string().nullable().describe("That API key's name (null when the key is gone or the asker was no API key)"),
    decidedBy: z.string().nullable(),
    decidedAt: isoTime.nullable(),
    createdAt: isoTime,
    usedAt: isoTime.nullable(),
  })
  .meta({ id: "OperatorPreview" });

export const PreviewListQuerySchema = z
  .object({ status: z.enum(PREVIEW_STATUSES).optional(), limit: z.coerce.number().int().min(1).max(200).default(50) })
  .strict();

export const PreviewListSchema = z.object({ previews: z.array(OperatorPreviewSchema) }).meta({ id: "OperatorPreviewList" });

export const DecidePreviewSchema = z.object({ note: z.string().trim().min(1).max(2_000) }).strict().meta({ id: "DecidePreview" });

export type PreviewWire = z.infer<typeof PreviewSchema>;
export type OperatorPreview = z.infer<typeof OperatorPreviewSchema>;
