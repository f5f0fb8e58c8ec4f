/**
 * The gate's own time on an answer, as a `Server-Timing` metric (W3C Server Timing): from when the
 * route took the request (before its body is read and its key checked) to when its answer was
 * ready to write, in milliseconds with at most two decimals. A monotonic clock (performance.now),
 * so a wall-clock step never makes it negative. Browsers and tracing tools show it beside the
 * request's own duration: the difference is the network and the client.
 */
export function gateTiming(startedAt: number): string {
  const ms = Math.max(0, performance.now() - startedAt);
  return `gate;dur=${Math.round(ms * 100) / 100}`;
}
