import { GateError } from "../../../lib/sdk";
import type { BeginRequest, CompleteRequest, GateTransport, HeartbeatRequest } from "../../../lib/sdk/types";

/** `before`: the request never reaches the gate. `after`: the gate acted, the answer was lost. */
export type Fault = "before" | "after" | "unauthorized" | null;
type Op = "begin" | "complete" | "heartbeat";

/**
 * Wraps the real transport and injects network faults per operation, in order; records every
 * request as sent so tests can check that retries resend exactly the same one.
 */
export class FlakyTransport implements GateTransport {
  readonly sent: { op: Op; callId?: string; request: unknown; at: number }[] = [];
  /** Operations that fail before reaching the gate for as long as they are in here. */
  readonly down = new Set<Op>();

  constructor(
    private readonly inner: GateTransport,
    private readonly faults: Partial<Record<Op, Fault[]>>,
    private readonly error: () => GateError = () => new GateError("network", "fetch failed (ECONNRESET)", true),
  ) {}

  private async through<T>(op: Op, request: unknown, callId: string | undefined, send: () => Promise<T>): Promise<T> {
    this.sent.push({ op, callId, request: structuredClone(request), at: Date.now() });
    const fault = this.faults[op]?.shift() ?? null;
    if (fault === "unauthorized") throw new GateError("unauthorized", "the API key is unknown or revoked", false, { status: 401 });
    if (fault === "before" || this.down.has(op)) throw this.error();
    const answer = await send();
    if (fault === "after") throw this.error();
    return answer;
  }

  begin(request: BeginRequest, signal?: AbortSignal) {
    return this.through("begin", request, undefined, () => this.inner.begin(request, signal));
  }
  complete(callId: string, request: CompleteRequest) {
    return this.through("complete", request, callId, () => this.inner.complete(callId, request));
  }
  heartbeat(callId: string, request: HeartbeatRequest) {
    return this.through("heartbeat", request, callId, () => this.inner.heartbeat(callId, request));
  }
  status(callId: string) {
    return this.inner.status(callId);
  }

  requests(op: Op): unknown[] {
    return this.sent.filter((s) => s.op === op).map((s) => s.request);
  }
}
