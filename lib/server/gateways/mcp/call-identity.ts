import type { Actor } from "../../operators/operator-audit";

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

/** Who is calling, as the MCP endpoint authenticated them. */
export interface McpCaller {
  projectId: string;
  apiKeyId: string;
  /** For the audit log, when the call asks for a resend. */
  actor: Actor;
  sessionId: string | null;
  runHeader: string | null;
  /** Where operators open the dashboard (the Approvals page a waiting client is pointed at). */
  dashboardOrigin: string;
}

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
// An id is passed on as sent, however long: the gate checks ids in one place (visible-ids.ts), so an
// over-long or invisible run id is refused there ("invalid"), never silently swapped for the session's.
const id = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);

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
    id(meta[META.runId]) ?? id(sources.runHeader) ?? (sources.sessionId ? `mcp:${sources.sessionId}` : null) ?? `key:${sources.apiKeyId}`;
  return {
    runId,
    stepId: id(meta[META.stepId]),
    scope: id(meta[META.scope]),
    agentId: id(meta[META.agentId]),
    toolCallId: id(sources.idempotencyKey) ?? id(meta.idempotencyKey),
    resendReason: text(meta[META.resend]),
  };
}
