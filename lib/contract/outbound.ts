import { z } from "zod";

/** A project's outbound allowlist (operator API, admins): where upstreams, MCP servers and webhooks may be called. */
export const OutboundAllowlistEntrySchema = z
  .object({
    id: z.string(),
    pattern: z.string().describe("`api.example.com`, `*.example.com`, an IP or a CIDR, optionally with `:port`"),
    note: z.string().nullable(),
    createdAt: z.iso.datetime(),
    createdBy: z.string().nullable(),
  })
  .meta({ id: "OutboundAllowlistEntry" });

export const OutboundAllowlistSchema = z.object({ entries: z.array(OutboundAllowlistEntrySchema) }).meta({ id: "OutboundAllowlist" });

export const AddOutboundAllowlistEntrySchema = z
  .object({
    pattern: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .describe(
        "A host (`api.stripe.com`), any subdomain (`*.example.com`), an IP or a CIDR (`10.0.0.0/8`), optionally `:port`. " +
          "Loopback, private, link-local and metadata addresses are reached only through an IP or CIDR entry.",
      ),
    note: z.string().trim().max(500).optional(),
  })
  .strict()
  .meta({ id: "AddOutboundAllowlistEntry" });

export const OutboundEntryParams = z.object({ projectId: z.string().min(1).max(200), entryId: z.string().min(1).max(200) });

export type OutboundAllowlistEntryWire = z.infer<typeof OutboundAllowlistEntrySchema>;
