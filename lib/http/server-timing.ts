/**
 * The gate's own time on an answer, as `Server-Timing` metrics (W3C Server Timing): `gate`, from
 * when the route took the request (before its body is read and its key checked) to when its answer
 * was ready to write, and `store`, the part of it spent waiting on the store (store-timing.ts), in
 * milliseconds with at most two decimals. A monotonic clock (performance.now), so a wall-clock
 * step never makes either negative. Browsers and tracing tools show them beside the request's own
 * duration: the difference is the network and the client; gate minus store is the gate's CPU.
 */
export function gateTiming(startedAt: number, storeMs: number): string {
  const ms = Math.max(0, performance.now() - startedAt);
  return `gate;dur=${twoDecimals(ms)}, store;dur=${twoDecimals(Math.min(storeMs, ms))}`;
}

function twoDecimals(ms: number): number {
  return Math.round(Math.max(0, ms) * 100) / 100;
}
