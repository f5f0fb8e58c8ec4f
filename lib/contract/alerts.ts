import { z } from "zod";
import { ALERT_CONDITIONS } from "../core/alerts";
import { ToolNameSchema, displayNameSchema } from "./tool-name";
import { noUserinfo } from "./url-credentials";

/** Alerts (operator API, admins): channels (secrets write-only), rules, the delivery log. */
export const AlertChannelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(["slack", "pagerduty", "webhook"]),
    target: z
      .string()
      .describe("Where it goes, without secrets: `scheme://host` and a fingerprint of the sealed URL (`(fingerprint 1a2b3c4d5e6f)`) to tell channels to one host apart"),
    createdAt: z.iso.datetime(),
    createdBy: z.string().nullable(),
  })
  .meta({ id: "AlertChannel" });

const url = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine(...noUserinfo("the receiver's token belongs in the URL's path or query (the whole URL is sealed and never shown) or, for webhooks, in the signing secret"));
const name = displayNameSchema(100);
const allowDeadLinks = z
  .literal(true)
  .optional()
  .describe("Add the channel although this install has no public URL (IDEMGATE_PUBLIC_URL): its messages would carry links no one can open");

export const CreateAlertChannelSchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("slack"), name, url: url.describe("The Slack incoming webhook URL (a secret: never shown again)"), allowDeadLinks }).strict(),
    z
      .object({
        kind: z.literal("pagerduty"),
        name,
        routingKey: z.string().trim().min(1).max(200).describe("The Events API v2 integration (routing) key: never shown again"),
        url: url.optional().describe("Default https://events.pagerduty.com/v2/enqueue"),
        allowDeadLinks,
      })
      .strict(),
    z
      .object({
        kind: z.literal("webhook"),
        name,
        url,
        signingSecret: z
          .string()
          .regex(/^whsec_[A-Za-z0-9+/=]{24,}$/, "a Standard Webhooks secret: whsec_ and base64 of at least 24 bytes")
          .optional()
          .describe("Standard Webhooks signing secret; generated (and answered once) when absent"),
        allowDeadLinks,
      })
      .strict(),
  ])
  .meta({ id: "CreateAlertChannel" });

export const CreatedAlertChannelSchema = AlertChannelSchema.extend({
  signingSecret: z.string().optional().describe("Webhook channels: the signing secret, shown this once"),
}).meta({ id: "CreatedAlertChannel" });

export const AlertConditionSchema = z.enum(ALERT_CONDITIONS);

export const AlertRuleSchema = z
  .object({
    id: z.string(),
    condition: AlertConditionSchema,
    tool: z.string().nullable(),
    minutes: z.number().int().nullable(),
    channelIds: z.array(z.string()),
    createdAt: z.iso.datetime(),
    createdBy: z.string().nullable(),
  })
  .meta({ id: "AlertRule" });

export const CreateAlertRuleSchema = z
  .object({
    condition: AlertConditionSchema,
    tool: ToolNameSchema.optional().describe("Only this tool; absent: every tool"),
    minutes: z.number().int().min(1).max(10_080).optional().describe("verify_unresolved and approval_pending: after this many minutes (default 15)"),
    channelIds: z.array(z.string().min(1).max(200)).min(1).max(20),
  })
  .strict()
  .meta({ id: "CreateAlertRule" });

export const AlertDeliveryAttemptSchema = z.object({
  at: z.iso.datetime(),
  outcome: z.enum(["delivered", "retry", "failed"]),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
});

export const AlertDeliverySchema = z
  .object({
    id: z.string().describe("The Standard Webhooks webhook-id: the same on every attempt"),
    channelId: z.string(),
    condition: z.string(),
    action: z.enum(["trigger", "resolve"]),
    dedupKey: z.string(),
    title: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    nextAttemptAt: z.iso.datetime().nullable(),
    lastCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.iso.datetime(),
    deliveredAt: z.iso.datetime().nullable(),
    log: z.array(AlertDeliveryAttemptSchema),
  })
  .meta({ id: "AlertDelivery" });

export const AlertsSchema = z
  .object({
    channels: z.array(AlertChannelSchema),
    rules: z.array(AlertRuleSchema),
    publicUrl: z.string().nullable().describe("The base of the links in alerts; null: this install has no public URL, and links in alerts cannot be opened"),
  })
  .meta({ id: "Alerts" });
export const AlertDeliveriesSchema = z.object({ deliveries: z.array(AlertDeliverySchema) }).meta({ id: "AlertDeliveries" });

export const AlertChannelParams = z.object({ projectId: z.string().min(1).max(200), channelId: z.string().min(1).max(200) });
export const AlertRuleParams = z.object({ projectId: z.string().min(1).max(200), ruleId: z.string().min(1).max(200) });

export type CreateAlertChannel = z.infer<typeof CreateAlertChannelSchema>;
export type CreateAlertRule = z.infer<typeof CreateAlertRuleSchema>;
export type AlertChannelWire = z.infer<typeof AlertChannelSchema>;
export type AlertRuleWire = z.infer<typeof AlertRuleSchema>;
export type AlertDeliveryWire = z.infer<typeof AlertDeliverySchema>;
