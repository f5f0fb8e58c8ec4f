/** Which tools/call a client's `notifications/cancelled` names: its caller, session and JSON-RPC id. */
export interface CallRef {
  projectId: string;
  apiKeyId: string;
  sessionId: string | null;
  requestId: string | number;
}

const refKey = (ref: CallRef) => [ref.projectId, ref.apiKeyId, ref.sessionId ?? "", typeof ref.requestId, String(ref.requestId)].join("\u0000");

/**
 * The tools/call requests this process is serving, so a 2025-era client's `notifications/cancelled`
 * (a POST of its own: serving is stateless per request) reaches the call it names and is passed
 * upstream. Keyed by API key and session too, so nobody cancels another caller's call. A cancel
 * that lands on another gate instance finds nothing here and changes nothing (the call finishes and
 * is recorded, as if the cancel had come too late).
 */
export class InFlightCalls {
  private readonly calls = new Map<string, AbortController>();

  /** A signal that aborts when the client cancels this call; `done` when the call has answered. */
  track(ref: CallRef): { signal: AbortSignal; done: () => void } {
    const key = refKey(ref);
    const controller = new AbortController();
    this.calls.set(key, controller);
    return {
      signal: controller.signal,
      done: () => {
        if (this.calls.get(key) === controller) this.calls.delete(key);
      },
    };
  }

  /** True when a call of this process was cancelled. */
  cancel(ref: CallRef, reason: string): boolean {
    const controller = this.calls.get(refKey(ref));
    if (!controller) return false;
    controller.abort(new CancelledByClientError(reason));
    return true;
  }

  get size(): number {
    return this.calls.size;
  }
}

export class CancelledByClientError extends Error {
  constructor(reason: string) {
    super(`cancelled by the client${reason ? `: ${reason}` : ""}`);
    this.name = "CancelledByClientError";
  }
}

/** The `notifications/cancelled` messages of a POST body (one message or a batch): the request ids and reasons. */
export function cancellationsIn(body: unknown): { requestId: string | number; reason: string }[] {
  const found: { requestId: string | number; reason: string }[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { requestId?: unknown; reason?: unknown } };
    if (method !== "notifications/cancelled") continue;
    const requestId = params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") continue;
    found.push({ requestId, reason: typeof params?.reason === "string" ? params.reason.slice(0, 500) : "" });
  }
  return found;
}
