/**
 * The test clients' answer to a connection the server closed or reset before it sent a byte of
 * its answer: send the same request again, as the SDK does (lib/sdk/retry.ts). On a loaded machine
 * a keep-alive connection can be closed by the server just as the client reuses it ("other side
 * closed", "socket hang up"); nothing was answered, and begin, complete (with its lease token) and
 * heartbeat are safe to repeat by design. A refused connection (no server) is not retried: the
 * crash tests want to see that one.
 */

/** What undici and node:net name a connection closed or reset under a request. */
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

const ATTEMPTS = 3;

/** Whether `error` (fetch's TypeError, or one of its causes) is a connection closed or reset under the request. */
export function isConnectionReset(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Object; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && RESET_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * fetch, once more (twice at most) when the connection was closed or reset before any response
 * byte. fetch resolves as soon as the status line and headers arrive, so a rejection of fetch
 * itself is a failure before the answer began. The body must be resendable (a string or none).
 */
export async function fetchRetryingResets(input: string | URL, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(input, init);
    } catch (error) {
      if (attempt >= ATTEMPTS || init.signal?.aborted || !isConnectionReset(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
