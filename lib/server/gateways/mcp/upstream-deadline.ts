/** `_meta` key a client may send on tools/call: how long (ms) it waits for the answer before it gives up. */
export const TIMEOUT_META = "idemgate/timeoutMs";

/** How long a client that declares nothing waits: the MCP SDKs' default request timeout. */
export const DEFAULT_CLIENT_WAIT_MS = 60_000;

/** How long an upstream call may take, and whether its progress extends that (the SDK's request options). */
export interface UpstreamDeadline {
  timeout: number;
  resetTimeoutOnProgress: boolean;
  /** With progress resetting the timeout: the most the call may take in all. */
  maxTotalTimeout?: number;
}

export interface DeadlineInputs {
  /** The tool's policy: the longest the gateway waits for an upstream's answer (mcp.timeoutSeconds). */
  policyTimeoutMs: number;
  /** The call's `_meta` (a declared timeout, `idemgate/timeoutMs`). */
  meta: Record<string, unknown> | undefined;
  /** The client asked for progress: its own timeout restarts with each progress notification it is sent. */
  progress: boolean;
}

/**
 * The upstream's deadline for one call: never longer than the client will wait, so a call whose
 * answer is lost is answered "outcome unknown" while the client still listens, not after it gave
 * up (and then retried into a duplicate). The client's wait is what it declared, else the SDKs'
 * 60 s; the gateway answers a little before it (its own answer has to travel back). Progress
 * restarts the wait only for a client that asked for progress, since only it hears the progress;
 * the policy's timeout then bounds the whole call.
 */
export function upstreamDeadline({ policyTimeoutMs, meta, progress }: DeadlineInputs): UpstreamDeadline {
  const declared = meta?.[TIMEOUT_META];
  const clientWait = typeof declared === "number" && Number.isFinite(declared) && declared > 0 ? declared : DEFAULT_CLIENT_WAIT_MS;
  const margin = Math.min(2_000, Math.max(250, clientWait * 0.1));
  const beforeClient = Math.max(100, clientWait - margin);
  if (progress) return { timeout: Math.min(beforeClient, policyTimeoutMs), resetTimeoutOnProgress: true, maxTotalTimeout: policyTimeoutMs };
  return { timeout: Math.min(beforeClient, policyTimeoutMs), resetTimeoutOnProgress: false };
}
