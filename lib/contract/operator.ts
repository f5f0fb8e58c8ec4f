import { z } from "zod";
import { displayNameSchema } from "./tool-name";
import { ResendRequestSchema } from "./resends";

/** The operator API (app/api/v1/operator/**): session cookie, roles per project. */
const isoTime = z.iso.datetime();
const note = z.string().trim().min(1).max(2_000);

export const RoleSchema = z.enum(["viewer", "operator", "admin"]).meta({ id: "OperatorRole" });

const Party = z.object({
  type: z.string(),
  id: z.string().nullable(),
  label: z.string().nullable(),
  name: z.string().nullable().optional().describe("A readable name: the API key's name for an agent (label is its id)"),
});

export const OperatorResendRequestSchema = ResendRequestSchema.omit({ bypassToken: true })
  .extend({
    key: z.string().describe("The derived key (generation 1) the token is valid for"),
    argsFingerprint: z.string(),
    args: z.unknown().nullable().describe("The redacted arguments the resend would run with"),
    requestedBy: Party,
    decidedBy: Party.nullable(),
    tokenIssuedAt: isoTime.nullable(),
    usedAt: isoTime.nullable(),
    usedCallId: z.string().nullable().describe("The call that ran under the raised key generation"),
  })
  .meta({ id: "OperatorResendRequest" });

export const ResendListQuerySchema = z
  .object({
    status: z.enum(["pending", "approved", "denied"]).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    before: z.string().max(200).optional(),
  })
  .strict();

export const ResendListSchema = z.object({ requests: z.array(OperatorResendRequestSchema) }).meta({ id: "OperatorResendList" });

export const OperatorCreateResendSchema = z.object({ callId: z.string().min(1).max(200), reason: note }).strict();

export const ApproveSchema = z
  .object({ note, ttlSeconds: z.number().int().min(1).max(86_400).optional().describe("How long the token stays usable (default: IDEMGATE_BYPASS_TOKEN_TTL_SECONDS, 15 min)") })
  .strict();

export const DenySchema = z.object({ note }).strict();

export const EvictSchema = z.object({ reason: note }).strict();

export const ResolveSchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("succeeded"), result: z.unknown().optional(), note }).strict(),
  z.object({ outcome: z.literal("failed"), error: z.object({ message: z.string().min(1).max(10_000) }).strict(), note }).strict(),
]);

export const ApiKeySchema = z
  .object({ id: z.string(), name: z.string(), prefix: z.string(), createdAt: isoTime, lastUsedAt: isoTime.nullable(), revokedAt: isoTime.nullable() })
  .meta({ id: "ApiKey" });

export const ApiKeyListSchema = z.object({ keys: z.array(ApiKeySchema) });

export const CreateApiKeySchema = z.object({ name: displayNameSchema(100) }).strict();

export const CreatedApiKeySchema = ApiKeySchema.extend({ key: z.string().describe("The key itself: shown this once, never stored") });

export const MemberSchema = z
  .object({ userId: z.string(), email: z.string(), name: z.string(), role: RoleSchema, createdAt: isoTime })
  .meta({ id: "Member" });

export const MemberListSchema = z.object({ members: z.array(MemberSchema) });

export const AddMemberSchema = z
  .object({
    email: z.email().max(254),
    role: RoleSchema,
    name: displayNameSchema(200).optional(),
    password: z.string().min(8).max(128).optional().describe("Only to create a new account"),
  })
  .strict();

export const SetRoleSchema = z.object({ role: RoleSchema }).strict();

export const AuditEntrySchema = z
  .object({
    id: z.string(),
    at: isoTime,
    actor: Party,
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string() }),
    detail: z.unknown().nullable(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .meta({ id: "AuditEntry" });

/** The audit log's filters, shared by the list and its CSV export. */
export const AuditFilterSchema = z.object({
  actor: z.string().trim().min(1).max(254).optional().describe("Entries whose actor's label (an email, an API key id) starts with this, or whose actor id it is"),
  action: z.string().trim().min(1).max(100).optional().describe("Entries whose action starts with this: `policy.` or `resend.approved`"),
  from: z.iso.datetime({ offset: true }).optional().describe("At or after (ISO 8601)"),
  to: z.iso.datetime({ offset: true }).optional().describe("Before (ISO 8601)"),
});

const fromBeforeTo = (q: { from?: string; to?: string }) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to);

export const AuditQuerySchema = AuditFilterSchema.extend({ limit: z.coerce.number().int().min(1).max(500).default(100), before: z.string().max(200).optional() })
  .strict()
  .refine(fromBeforeTo, { message: "`from` must be before `to`", path: ["from"] });

export const AuditExportQuerySchema = AuditFilterSchema.strict().refine(fromBeforeTo, { message: "`from` must be before `to`", path: ["from"] });

export const AuditListSchema = z.object({ entries: z.array(AuditEntrySchema), nextBefore: z.string().nullable() });

export const MeSchema = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string(), instanceAdmin: z.boolean() }),
  memberships: z.array(z.object({ projectId: z.string(), role: RoleSchema })),
});

export type OperatorResendRequest = z.infer<typeof OperatorResendRequestSchema>;
