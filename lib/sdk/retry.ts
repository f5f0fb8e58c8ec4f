import { GateError } from "./errors";
import type { Backoff } from "./types";

/** DESIGN.md's default advice; used until the gate has sent its own. */
export const DEFAULT_TOOL_RETRY: Backoff = { maxAttempts: 3, initialDelayMs: 1_000, backoffFactor: 2, maxDelayMs: 30_000 };

/** Transient gate errors (network, 503, retryable bodies): quick, bounded retries of the same request. */
export const DEFAULT_GATE_RETRY: Backoff = { maxAttempts: 6, initialDelayMs: 100, backoffFactor: 2, maxDelayMs: 2_000 };

/** Longest a gate's Retry-After is honoured for one retry. */
const MAX_RETRY_AFTER_MS = 30_000;

/** Exponential backoff with equal jitter: half the step is fixed, half random. `n` counts from 0. */
export function backoffDelay(backoff: Backoff, n: number, random: () => number = Math.random): number {
  const step = Math.min(backoff.maxDelayMs, backoff.initialDelayMs * backoff.backoffFactor ** Math.max(0, n));
  return Math.round(step / 2 + (random() * step) / 2);
}

export function withBackoff(base: Backoff, override?: Partial<Backoff>): Backoff {
  return { ...base, ...(override ?? {}) };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `send` until it succeeds, a non-retryable error is thrown, or attempts run out. The caller
 * passes a closure over one request object, so every retry sends exactly the same request — which
 * is what makes retrying a begin or a complete safe.
 */
export async function withGateRetry<T>(send: () => Promise<T>, backoff: Backoff, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof GateError) || !error.retryable || attempt >= backoff.maxAttempts) throw error;
      const advised = Math.min(error.details.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
      await sleep(Math.max(backoffDelay(backoff, attempt - 1), advised), signal);
    }
  }
}
