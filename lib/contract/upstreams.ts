import { z } from "zod";
import { noUserinfo } from "./url-credentials";

/** Upstreams (operator API): the MCP servers and HTTP APIs a project's gateways forward to. */
const isoTime = z.iso.datetime();

const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key"]);

export const UPSTREAM_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const name = z
  .string()
  .regex(UPSTREAM_NAME, "lowercase letters, digits, `-` and `_`, starting with a letter or digit, at most 63 characters")
  .describe("Unique per project; the gateway path segment (`/mcp/{name}`) and the tools' prefix");
const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2_000)
  .refine(...noUserinfo("put the credential in `secret` (write-only, sent as a header)"));
// Header names per RFC 9110 token; values without control characters.
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "an HTTP header name");
const headers = z
  .record(headerName, z.string().max(4_000).regex(/^[^\r\n\0]*$/, "no line breaks"))
  .refine((value) => Object.keys(value).length <= 50, "at most 50 headers")
  .refine((value) => !Object.keys(value).some((key) => CREDENTIAL_HEADERS.has(key.toLowerCase())), "credentials go in `secret` (write-only), not in `headers`")
  .describe("Non-secret headers sent on every upstream request (never put a credential here: use `secret`)");
const secret = z
  .string()
  .min(1)
  .max(8_000)
  .describe("Write-only credential, encrypted at rest and never returned; sent as `secretHeader` (default `Authorization: Bearer <secret>`)");

const idempotencyHeader = headerName.describe("http only: the header the gateway sends the gate's key in (default `Idempotency-Key`)");
const maxStoredBytes = z
  .number()
  .int()
  .min(0)
  .max(64 * 1024 * 1024)
  .describe("http only: responses up to this many bytes are stored and replayed; larger ones pass through, not replayable (default 1 MiB)");
const httpSettings = { idempotencyHeader: idempotencyHeader.optional(), maxStoredBytes: maxStoredBytes.optional() };

// A project admin names one of the commands the server's configuration lists (IDEMGATE_STDIO_COMMANDS);
// the command line, its arguments and environment are the server owner's, never a project's.
const stdioCommand = z
  .string()
  .regex(UPSTREAM_NAME, "the name of a command this server lists (IDEMGATE_STDIO_COMMANDS), not a command line")
  .describe("Self-hosted only: the name of a command the server's configuration lists (`IDEMGATE_STDIO_COMMANDS`); the gateway spawns what the configuration says under that name");
const noArgs = z
  .array(z.string())
  .max(0, "a stdio command's arguments are set in the server's configuration (IDEMGATE_STDIO_COMMANDS), not by a project")
  .describe("Always empty: arguments come from the server's configuration");

export const UpstreamKindSchema = z.enum(["mcp", "http"]);
export const UpstreamTransportSchema = z.enum(["streamable_http", "stdio"]);

const common = {
  name,
  headers: headers.optional(),
  secret: secret.optional(),
  secretHeader: headerName.optional().describe("Header carrying the secret; `authorization` (the default) sends `Bearer <secret>`"),
};

export const CreateUpstreamSchema = z
  .discriminatedUnion("transport", [
    z.object({ kind: z.literal("mcp"), transport: z.literal("streamable_http"), url: httpUrl, ...common }).strict(),
    z
      .object({
        kind: z.literal("mcp"),
        transport: z.literal("stdio"),
        command: stdioCommand,
        args: noArgs.default([]),
        ...common,
      })
      .strict(),
    z.object({ kind: z.literal("http"), transport: z.null().optional(), url: httpUrl, ...common, ...httpSettings }).strict(),
  ])
  .meta({ id: "CreateUpstream" });

/** A partial change; `secret: null` removes the secret. Kind and transport are fixed once created. */
export const UpdateUpstreamSchema = z
  .object({
    url: httpUrl.optional(),
    command: stdioCommand.optional(),
    args: noArgs.optional(),
    headers: headers.optional(),
    secret: secret.nullable().optional(),
    secretHeader: headerName.nullable().optional(),
    idempotencyHeader: idempotencyHeader.nullable().optional(),
    maxStoredBytes: maxStoredBytes.nullable().optional(),
    expectedVersion: z.number().int().min(1).optional().describe("Refuse (409) unless the upstream is at this version"),
  })
  .strict()
  .meta({ id: "UpdateUpstream" });

export const UpstreamSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: UpstreamKindSchema,
    transport: UpstreamTransportSchema.nullable(),
    url: z.string().nullable(),
    command: z.string().nullable(),
    args: z.array(z.string()),
    headers: z.record(z.string(), z.string()),
    secretHeader: z.string().nullable(),
    hasSecret: z.boolean().describe("Whether a secret is set; the secret itself is never returned"),
    idempotencyHeader: z.string().nullable().describe("http only: the header carrying the gate's key upstream; null is `Idempotency-Key`"),
    maxStoredBytes: z.number().int().nullable().describe("http only: the largest response stored for replays; null is 1 MiB"),
    version: z.number().int(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: "Upstream" });

export const UpstreamListSchema = z
  .object({
    upstreams: z.array(UpstreamSchema),
    stdioCommands: z.array(z.string()).optional().describe("The stdio commands this server's configuration lists (IDEMGATE_STDIO_COMMANDS): the names a stdio upstream may pick"),
  })
  .meta({ id: "UpstreamList" });

export type CreateUpstream = z.infer<typeof CreateUpstreamSchema>;
export type UpdateUpstream = z.infer<typeof UpdateUpstreamSchema>;
export type WireUpstream = z.infer<typeof UpstreamSchema>;

/** MCP tool annotations: untrusted hints the upstream gives, shown beside the policy (defaults only). */
export const McpToolAnnotationsSchema = z
  .object({ readOnlyHint: z.boolean(), destructiveHint: z.boolean(), idempotentHint: z.boolean(), openWorldHint: z.boolean() })
  .partial()
  .meta({ id: "McpToolAnnotations" });

export const McpToolListSchema = z
  .object({
    tools: z.array(
      z.object({
        /** The gate's tool name, `<upstream>__<tool>`: the name policies and calls carry. */
        tool: z.string(),
        upstream: z.string(),
        name: z.string(),
        annotations: McpToolAnnotationsSchema,
      }),
    ),
    /** Upstreams whose tools could not be listed just now (down, or outside the allowlist). */
    unreachable: z.array(z.object({ upstream: z.string(), message: z.string() })),
  })
  .meta({ id: "McpToolList" });
export type McpToolList = z.infer<typeof McpToolListSchema>;
