import { afterEach, describe, expect, it } from "vitest";
import { GateError } from "../../../lib/sdk";
import { type Fault, FlakyTransport } from "./flaky-transport";
import { type TestGate, inProcessGate } from "./helpers";

let t: TestGate;
afterEach(async () => t?.close());

async function flakyGate(faults: Partial<Record<"begin" | "complete" | "heartbeat", Fault[]>>, error?: () => GateError) {
  t = await inProcessGate();
  let flaky!: FlakyTransport;
  const gate = t.client({ gateRetry: { initialDelayMs: 40, backoffFactor: 2, maxAttempts: 4 } }, (inner) => (flaky = new FlakyTransport(inner, faults, error)));
  return { gate, flaky };
}

describe("transient gate errors are retried with the same request", () => {
  it("begin lost before reaching the gate: retried with an identical request, the tool runs once", async () => {
    const { gate, flaky } = await flakyGate({ begin: ["before", "before"] });
    let runs = 0;
    const started = Date.now();
    const result = await gate.run({ runId: "r1" }, () =>
      gate.call({ tool: "charge_card", scope: "order:1", toolCallId: "tc", args: { amount: 1 } }, async () => ++runs),
    );
    expect(result).toMatchObject({ ok: true, status: "executed", value: 1 });
    expect(runs).toBe(1);
    const begins = flaky.requests("begin");
    expect(begins).toHaveLength(3);
    expect(begins[1]).toEqual(begins[0]);
    expect(begins[2]).toEqual(begins[0]);
    // Equal-jitter backoff: at least half of 40 ms, then half of 80 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it("complete whose answer was lost: resent with the same lease, the gate answers as before, nothing flagged", async () => {
    const { gate, flaky } = await flakyGate({ complete: ["after", "after"] });
    const result = await gate.run({ runId: "r2" }, () => gate.call({ tool: "send_email", step: "confirm" }, async () => ({ id: "m1" })));
    expect(result).toMatchObject({ ok: true, status: "executed", recorded: true, value: { id: "m1" } });
    const completes = flaky.requests("complete");
    expect(completes).toHaveLength(3);
    expect(new Set(completes.map((c) => JSON.stringify(c))).size).toBe(1);
    if (result.status !== "executed") throw new Error("unreachable");
    const events = await t.store.listEventsForCall(t.projectId, result.callId);
    expect(events.map((e) => e.type)).not.toContain("lease_lost");
    expect(await t.transport.status(result.callId)).toMatchObject({ status: "succeeded", result: { id: "m1" } });
  });

  it("honours the error's retry-after (503 contention / store_unavailable)", async () => {
    const busy = () => new GateError("store_unavailable", "the store is unavailable", true, { status: 503, retryAfterMs: 300 });
    const { gate } = await flakyGate({ begin: ["before"] }, busy);
    const started = Date.now();
    const result = await gate.run({ runId: "r3" }, () => gate.call({ tool: "t", step: "s" }, async () => "ok"));
    expect(result.status).toBe("executed");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("a non-retryable gate error is thrown at once: nothing ran", async () => {
    const { gate, flaky } = await flakyGate({ begin: ["unauthorized"] });
    let runs = 0;
    const error = await gate.run({ runId: "r4" }, () => gate.call({ tool: "t", step: "s" }, async () => ++runs)).catch((e) => e);
    expect(error).toBeInstanceOf(GateError);
    expect(error).toMatchObject({ code: "unauthorized", retryable: false });
    expect(flaky.requests("begin")).toHaveLength(1);
    expect(runs).toBe(0);
  });

  it("gives up after gateRetry.maxAttempts with the last GateError", async () => {
    const { gate, flaky } = await flakyGate({ begin: ["before", "before", "before", "before", "before"] });
    const error = await gate.run({ runId: "r5" }, () => gate.call({ tool: "t", step: "s" }, async () => 1)).catch((e) => e);
    expect(error).toMatchObject({ name: "GateError", code: "network", retryable: true });
    expect(flaky.requests("begin")).toHaveLength(4);
  });

  it("the gate's own 'invalid_input' (zod) is a typed GateError, never retried", async () => {
    t = await inProcessGate();
    const error = await t.gate.run({ runId: "r6" }, () => t.gate.call({ tool: "" }, async () => 1)).catch((e) => e);
    expect(error).toMatchObject({ name: "GateError", code: "invalid_input", retryable: false });
  });
});
