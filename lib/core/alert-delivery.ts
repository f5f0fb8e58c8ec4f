/** One alert delivery's attempts: what an answer means, and how long to wait before the next. */

export interface Backoff {
  baseMs: number;
  maxMs: number;
  maxAttempts: number;
}

/** Delay before attempt `attempts + 1`, after `attempts` failed: doubling from baseMs, capped at maxMs. */
export function retryDelayMs(attempts: number, backoff: Backoff): number {
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempts - 1));
}

/** An answer that a later attempt may turn into a delivery: none (network, timeout, refused), 408, 425, 429 or 5xx. */
export function retryableStatus(status: number | null): boolean {
  return status === null || status === 408 || status === 425 || status === 429 || status >= 500;
}

export type AttemptOutcome = "delivered" | "retry" | "failed";

/** What one attempt's answer means for the delivery, after `attempts` attempts in all. */
export function attemptOutcome(status: number | null, attempts: number, backoff: Backoff): AttemptOutcome {
  if (status !== null && status >= 200 && status < 300) return "delivered";
  if (!retryableStatus(status)) return "failed";
  return attempts >= backoff.maxAttempts ? "failed" : "retry";
}
