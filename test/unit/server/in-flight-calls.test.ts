import { describe, expect, it } from "vitest";
import { CancelledByClientError, InFlightCalls, cancellationsIn } from "../../../lib/server/gateways/mcp/in-flight-calls";

describe("in-flight MCP calls (a client's notifications/cancelled)", () => {
  const ref = { projectId: "p1", apiKeyId: "k1", sessionId: "s1", requestId: 7 };

  it("a cancel reaches the call it names, with its reason, and only that call", () => {
    const calls = new InFlightCalls();
    const named = calls.track(ref);
    const other = calls.track({ ...ref, requestId: 8 });
    expect(calls.cancel(ref, "user pressed stop")).toBe(true);
    expect(named.signal.aborted).toBe(true);
    expect(named.signal.reason).toBeInstanceOf(CancelledByClientError);
    expect((named.signal.reason as Error).message).toMatch(/user pressed stop/);
    expect(other.signal.aborted).toBe(false);
  });

  it("another API key, session or id type cancels nothing; a finished call is forgotten", () => {
    const calls = new InFlightCalls();
    const tracked = calls.track(ref);
    expect(calls.cancel({ ...ref, apiKeyId: "k2" }, "")).toBe(false);
    expect(calls.cancel({ ...ref, sessionId: null }, "")).toBe(false);
    expect(calls.cancel({ ...ref, requestId: "7" }, "")).toBe(false);
    expect(tracked.signal.aborted).toBe(false);
    tracked.done();
    expect(calls.size).toBe(0);
    expect(calls.cancel(ref, "")).toBe(false);
  });

  it("finds the cancellations of a body, single or batched, and ignores malformed ones", () => {
    expect(cancellationsIn({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "timeout" } })).toEqual([{ requestId: 3, reason: "timeout" }]);
    expect(
      cancellationsIn([
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: { bad: true } } },
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: {} },
      ]),
    ).toEqual([{ requestId: "a", reason: "" }]);
    expect(cancellationsIn(undefined)).toEqual([]);
  });
});
