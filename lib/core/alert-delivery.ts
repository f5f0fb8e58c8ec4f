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

/** The longest a receiver's Retry-After is honoured: a bound, so a receiver cannot park an alert for a day. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The wait a 429 or 503 asks for in its Retry-After (seconds, or an HTTP date), bounded by
 * `capMs`; null when there is none to honour (another status, no header, a value unreadable).
 */
export function retryAfterMs(status: number | null, header: string | null, now: number, capMs: number = MAX_RETRY_AFTER_MS): number | null {
  if ((status !== 429 && status !== 503) || header === null) return null;
  const text = header.trim();
  let wait: number;
  if (/^\d+$/.test(text)) wait = Number(text) * 1_000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    wait = at - now;
  }
  return Math.min(capMs, Math.max(0, wait));
}

/**
 * The least time between two sends to one channel, from the service's documented limits: Slack's
 * incoming webhooks allow about one message per second; PagerDuty's Events API about 120 events a
 * minute per routing key. A generic webhook has no limit of its own to respect.
 */
export const CHANNEL_PACE_MS: Record<"slack" | "pagerduty" | "webhook", number> = { slack: 1_000, pagerduty: 500, webhook: 0 };
