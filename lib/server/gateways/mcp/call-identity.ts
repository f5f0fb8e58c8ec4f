/** `_meta` keys a client may send on tools/call (DESIGN.md, "MCP gateway"). */
export const META = {
  runId: "idemgate/runId",
  stepId: "idemgate/stepId",
  scope: "idemgate/scope",
  agentId: "idemgate/agentId",
  /** A reason: asks to run a completed call once more (an operator approves it, then it runs). */
  resend: "idemgate/resend",
  decision: "idemgate/decision",
  callId: "idemgate/callId",
  key: "idemgate/key",
} as const;

export interface McpCallIdentity {
  runId: string;
  stepId: string | null;
  scope: string | null;
  agentId: string | null;
  toolCallId: string | null;
  resendReason: string | null;
}

export interface IdentitySources {
  meta: Record<string, unknown> | undefined;
  /** `idempotencyKey` on the tools/call params (the MCP SEP on request idempotency). */
  idempotencyKey: unknown;
  /** The `Idemgate-Run-Id` header, for clients that can set headers but not `_meta`. */
  runHeader: string | null;
  /** The MCP session the gateway issued (2025-era clients), when there is one. */
  sessionId: string | null;
  apiKeyId: string;
}

const text = (value: unknown): string | null => (typeof value === "string" && value.length > 0 && value.length <= 200 ? value : null);

/**
 * Who a tools/call belongs to, without an agent runtime: the client's own `_meta` first, then the
 * `Idemgate-Run-Id` header, then the MCP session, and last the caller's API key — so a stateless
 * client's identical calls dedupe by their arguments (or `scopeFrom`) within the policy's TTL.
 * A client-sent idempotency key is the toolCallId, which is the key under the `toolCallId`
 * strategy and recorded under the others.
 */
export function identifyCall(sources: IdentitySources): McpCallIdentity {
  const meta = sources.meta ?? {};
  const runId =
    text(meta[META.runId]) ?? text(sources.runHeader) ?? (sources.sessionId ? `mcp:${sources.sessionId}` : null) ?? `key:${sources.apiKeyId}`;
  return {
    runId,
    stepId: text(meta[META.stepId]),
    scope: text(meta[META.scope]),
    agentId: text(meta[META.agentId]),
    toolCallId: text(sources.idempotencyKey) ?? text(meta.idempotencyKey),
    resendReason: text(meta[META.resend]),
  };
}
