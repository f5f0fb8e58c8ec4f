import { afterEach, describe, expect, it } from "vitest";
import { ToolError } from "../../../lib/sdk";
import { type TestGate, delay, inProcessGate } from "./helpers";

let t: TestGate;
afterEach(async () => t?.close());

describe("call(): execute, replay and typed results against the real engine", () => {
  it("runs exec once per key, hands it the gate's key, and replays the stored result", async () => {
    t = await inProcessGate();
    const keys: string[] = [];
    const exec = async ({ idempotencyKey }: { idempotencyKey: string }) => {
      keys.push(idempotencyKey);
      return { chargeId: "ch_1", at: new Date(0) };
    };
    const [first, second] = await t.gate.run({ runId: "run-1" }, async () => [
      await t.gate.call({ tool: "charge_card", scope: "order:1", toolCallId: "tc_1", args: { amount: 5 } }, exec),
      await t.gate.call({ tool: "charge_card", scope: "order:1", toolCallId: "tc_2", args: { amount: 5, memo: "again" } }, exec),
    ]);

    expect(keys).toHaveLength(1);
    expect(first).toMatchObject({ ok: true, status: "executed", attempt: 1, recovered: false, recorded: true });
    expect(second).toMatchObject({ ok: true, status: "replayed", argsMismatch: true, replays: 1 });
    // A fresh result has the stored (JSON) shape, so "called twice" looks exactly like "called once".
    expect(first.ok && first.value).toEqual({ chargeId: "ch_1", at: "1970-01-01T00:00:00.000Z" });
    expect(second.ok && second.value).toEqual(first.ok && first.value);
    if (first.status !== "executed") throw new Error("unreachable");
    expect(keys[0]).toBe(first.key);
    const status = await t.transport.status(first.callId);
    expect(status).toMatchObject({ key: keys[0], status: "succeeded", toolCallId: "tc_1", agentId: "main", runId: "run-1" });
  });

  it("a permanent failure is a typed result, cached, and replayed as the same failure without running again", async () => {
    t = await inProcessGate();
    let runs = 0;
    const exec = async () => {
      runs++;
      throw new ToolError("card declined", { retryable: false });
    };
    const [first, again] = await t.gate.run({ runId: "run-2" }, async () => [
      await t.gate.call({ tool: "charge_card", step: "charge" }, exec),
      await t.gate.call({ tool: "charge_card", step: "charge" }, exec),
    ]);
    expect(runs).toBe(1);
    expect(first).toMatchObject({ ok: false, status: "failed", replayed: false, error: { message: "card declined", retryable: false } });
    expect(again).toMatchObject({ ok: false, status: "failed", replayed: true, error: { message: "card declined", retryable: false } });
  });

  it("surfaces refused and conflict from the policy as typed results, not exceptions", async () => {
    t = await inProcessGate({ policy: { onDuplicate: "refuse", onArgsMismatch: "reject" } });
    const exec = async () => ({ sent: true });
    const results = await t.gate.run({ runId: "run-3" }, async () => [
      await t.gate.call({ tool: "send_email", scope: "order:9", args: { to: "a@x" } }, exec),
      await t.gate.call({ tool: "send_email", scope: "order:9", args: { to: "a@x" } }, exec),
      await t.gate.call({ tool: "send_email", scope: "order:9", args: { to: "b@x" } }, exec),
    ]);
    expect(results.map((r) => r.status)).toEqual(["executed", "refused", "conflict"]);
    expect(results[1]).toMatchObject({ ok: false, original: { status: "succeeded" } });
  });

  it("waits out another attempt's live lease and replays its outcome (in_progress → replay)", async () => {
    t = await inProcessGate();
    const other = t.client();
    let runs = 0;
    const slow = async () => {
      runs++;
      await delay(300);
      return { n: runs };
    };
    const [a, b] = await t.gate.run({ runId: "run-4" }, () =>
      Promise.all([
        t.gate.call({ tool: "export", step: "export" }, slow),
        delay(50).then(() => other.call({ tool: "export", step: "export" }, slow)),
      ]),
    );
    expect(runs).toBe(1);
    expect(a).toMatchObject({ status: "executed", value: { n: 1 } });
    expect(b).toMatchObject({ status: "replayed", value: { n: 1 } });
  });

  it("gives up waiting after maxWaitMs with a typed in_progress result", async () => {
    t = await inProcessGate();
    const impatient = t.client({ waitMs: 100, maxWaitMs: 250 });
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const started = Date.now();
    const [first, second] = await t.gate.run({ runId: "run-5" }, async () => {
      const first = t.gate.call({ tool: "export", step: "export" }, async () => {
        await holding;
        return "done";
      });
      await delay(20);
      const second = await impatient.call({ tool: "export", step: "export" }, async () => "never");
      release();
      return [await first, second];
    });
    expect(second).toMatchObject({ ok: false, status: "in_progress" });
    expect(second.status === "in_progress" && second.waitedMs).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(first).toMatchObject({ status: "executed", value: "done" });
  });

  it("retries a retryable tool failure per the advice, as attempt 2 on the same key", async () => {
    t = await inProcessGate({ policy: { retry: { maxAttempts: 3, initialDelayMs: 20, backoffFactor: 2, maxDelayMs: 100 } } });
    const seen: { key: string; attempt: number }[] = [];
    const result = await t.gate.run({ runId: "run-6" }, () =>
      t.gate.call({ tool: "charge_card", step: "charge" }, async ({ idempotencyKey, attempt }) => {
        seen.push({ key: idempotencyKey, attempt });
        if (attempt === 1) throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
        return "ok";
      }),
    );
    expect(result).toMatchObject({ ok: true, status: "executed", attempt: 2, value: "ok" });
    expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
  });

  it("with toolRetry: false a retryable failure is surfaced at once, and the next call runs again", async () => {
    t = await inProcessGate();
    const gate = t.client({ toolRetry: false });
    let runs = 0;
    const results = await gate.run({ runId: "run-7" }, async () => [
      await gate.call({ tool: "charge_card", step: "charge" }, async () => {
        runs++;
        const error = new Error("upstream timed out");
        error.name = "TimeoutError";
        throw error;
      }),
      await gate.call({ tool: "charge_card", step: "charge" }, async ({ attempt }) => ({ runs: ++runs, attempt })),
    ]);
    expect(results[0]).toMatchObject({ ok: false, status: "failed", replayed: false, error: { retryable: true } });
    expect(results[1]).toMatchObject({ ok: true, status: "executed", value: { runs: 2, attempt: 2 } });
  });

  it("throws outside a run unless the spec names one", async () => {
    t = await inProcessGate();
    await expect(t.gate.call({ tool: "x" }, async () => 1)).rejects.toThrow(/outside gate.run/);
    await expect(t.gate.call({ tool: "x", runId: "explicit" }, async () => 1)).resolves.toMatchObject({ status: "executed" });
  });
});

describe("call(): a result the gate cannot store still closes the call, so the tool never runs twice", () => {
  const cases: [string, () => unknown][] = [
    ["a BigInt", () => ({ amount: 10n })],
    ["a cycle", () => {
      const node: Record<string, unknown> = { id: 1 };
      node.self = node;
      return node;
    }],
    ["nesting past the gate's bound", () => JSON.parse(`${"[".repeat(500)}${"]".repeat(500)}`)],
    ["nesting past JSON.stringify's stack", () => JSON.parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`)],
  ];
  it.each(cases)("%s: executed once, recorded as succeeded without the value, later calls replay", async (_name, make) => {
    t = await inProcessGate();
    let runs = 0;
    const exec = async () => {
      runs++;
      return make();
    };
    const [first, second] = await t.gate.run({ runId: "run-unstorable" }, async () => [
      await t.gate.call({ tool: "export_graph", step: "export" }, exec),
      await t.gate.call({ tool: "export_graph", step: "export" }, exec),
    ]);
    expect(runs).toBe(1);
    expect(first).toMatchObject({ ok: true, status: "executed", recorded: true });
    expect(first.status === "executed" && first.resultNotStored).toBeTruthy();
    expect(second).toMatchObject({ ok: true, status: "replayed", value: null });
  });
});
