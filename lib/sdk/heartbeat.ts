import { GateError } from "./errors";
import { withGateRetry } from "./retry";
import type { Backoff, GateTransport } from "./types";

export interface HeartbeatOptions {
  transport: GateTransport;
  callId: string;
  leaseToken: string;
  /** The lease the gate granted, epoch ms. */
  leaseExpiresAt: number;
  /** A lease length of our own (each beat sets it); default: the gate's policy, measured from the grant. */
  leaseSeconds?: number;
  retry: Backoff;
  /** Another attempt owns the call now: the tool should stop. */
  onLost: (error: GateError) => void;
}

export interface HeartbeatHandle {
  /** Stops beating and waits for a beat in flight, so no beat lands after the complete. */
  stop(): Promise<void>;
}

const MIN_INTERVAL_MS = 200;

/** Keeps a lease alive while the tool runs: one beat every third of the lease. */
export function startHeartbeat(options: HeartbeatOptions): HeartbeatHandle {
  const stopper = new AbortController();
  let expiresAt = options.leaseExpiresAt;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: Promise<void> = Promise.resolve();
  const request = {
    leaseToken: options.leaseToken,
    ...(options.leaseSeconds !== undefined ? { extendSeconds: options.leaseSeconds } : {}),
  };

  const interval = () =>
    options.leaseSeconds !== undefined
      ? Math.max(MIN_INTERVAL_MS, (options.leaseSeconds * 1000) / 3)
      : Math.max(MIN_INTERVAL_MS, (expiresAt - Date.now()) / 3);

  const schedule = (ms: number) => {
    if (stopper.signal.aborted) return;
    timer = setTimeout(() => (inflight = beat()), Math.max(0, ms));
    timer.unref?.();
  };

  const beat = async () => {
    // The cadence runs from when a beat was sent, not from when its answer came back: under load a
    // slow answer must not push the next beat past the lease the previous one bought.
    const sentAt = Date.now();
    try {
      const answer = await withGateRetry(
        () => options.transport.heartbeat(options.callId, request),
        { ...options.retry, maxAttempts: Math.min(options.retry.maxAttempts, 3) },
        stopper.signal,
      );
      // Newer gates answer null once the attempt has completed: nothing left to keep alive.
      const granted = answer.leaseExpiresAt as string | null;
      if (granted === null) return;
      expiresAt = Date.parse(granted);
      schedule(sentAt + interval() - Date.now());
    } catch (error) {
      if (stopper.signal.aborted) return;
      if (error instanceof GateError && (error.code === "lease_lost" || error.code === "not_found")) {
        stopper.abort();
        options.onLost(error);
        return;
      }
      // The gate is unreachable for now: the lease is still ours until someone else claims it.
      schedule(interval() / 2);
    }
  };

  schedule(interval());
  return {
    async stop() {
      stopper.abort();
      clearTimeout(timer);
      await inflight;
    },
  };
}
