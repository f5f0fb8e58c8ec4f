import { z } from "zod";

/** The agent side of human-approved resends (DESIGN.md): ask, then poll until a decision. */
const isoTime = z.iso.datetime();

export const ResendStatusSchema = z
  .enum(["pending", "approved", "denied", "expired", "used"])
  .meta({ id: "ResendStatus", description: "expired: undecided in time, or approved but unused in time; used: its token ran once" });

export const CreateResendRequestSchema = z
  .object({ reason: z.string().trim().min(1).max(2_000).describe("Why the call must run again, for the operator who decides") })
  .strict()
  .meta({ id: "CreateResendRequest" });

export const ResendRequestSchema = z
  .object({
    requestId: z.string(),
    callId: z.string().describe("The completed call the request names"),
    tool: z.string(),
    status: ResendStatusSchema,
    reason: z.string(),
    requestedAt: isoTime,
    decidedAt: isoTime.nullable(),
    note: z.string().nullable().describe("The deciding operator's note"),
    expiresAt: isoTime.describe("pending: until when it can be decided; approved: until when its token can be used"),
    tokenIssued: z.boolean().describe("Whether the bypass token was handed out (it is shown once)"),
    bypassToken: z
      .string()
      .optional()
      .describe("Single-use: pass it as `bypassToken` to begin with the same tool, step and args. Shown once, to the API key that asked"),
  })
  .meta({ id: "ResendRequest" });

export type ResendRequestWire = z.infer<typeof ResendRequestSchema>;
