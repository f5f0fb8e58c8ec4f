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
  /**
   * The client named no run: the run is its API key's anonymous one (`key:<apiKeyId>`), the same
   * across sessions, reconnects and restarts of the stdio entrypoint, and its outcomes dedupe only
   * within the tool's `mcp.runWindowSeconds` (BeginCall.runWindowed).
   */
  runWindowed: boolean;
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
  apiKeyId: string;
}

const text = (value: unknown): string | null => (typeof value === "string" && value.length > 0 && value.length <= 200 ? value : null);
// An id is passed on as sent, however long: the gate checks ids in one place (visible-ids.ts), so an
// over-long or invisible run id is refused there ("invalid"), never silently swapped for the session's.
const id = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);

/**
 * Who a tools/call belongs to, without an agent runtime: the client's own `_meta` first, then the
 * `Idemgate-Run-Id` header; a client that names neither is in its API key's anonymous run. Not the
 * MCP session: a reconnect, a new session or a restarted entrypoint is the same user's retry, and
 * would run the call again. The anonymous run dedupes only within the run window, so unrelated
 * conversations of a client that never names a run are not each other's duplicates for a day.
 * A client-sent idempotency key is the toolCallId, which is the key under the `toolCallId`
 * strategy and recorded under the others.
 */
export function identifyCall(sources: IdentitySources): McpCallIdentity {
  const meta = sources.meta ?? {};
  const named = id(meta[META.runId]) ?? id(sources.runHeader);
  return {
    runId: named ?? `key:${sources.apiKeyId}`,
    runWindowed: named === null,
    stepId: id(meta[META.stepId]),
    scope: id(meta[META.scope]),
    agentId: id(meta[META.agentId]),
    toolCallId: id(sources.idempotencyKey) ?? id(meta.idempotencyKey),
    resendReason: text(meta[META.resend]),
  };
}
