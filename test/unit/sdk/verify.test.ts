import { afterEach, describe, expect, it } from "vitest";
import { type TestGate, inProcessGate } from "./helpers";

let t: TestGate;
afterEach(async () => t?.close());

/** An async tool (effect: async) whose first attempt vanished: it began, then its agent died. */
async function vanishedAttempt(runId: string) {
  t = await inProcessGate({ policy: { effect: "async", leaseSeconds: 1 } });
  const claim = await t.transport.begin({ tool: "provision_vm", runId, stepId: "provision" });
  if (claim.decision !== "execute") throw new Error(`expected execute, got ${claim.decision}`);
  return claim;
}

describe("verify: an earlier attempt vanished without an answer", () => {
  it("calls the verify hook with the key; what it found completes the call, the tool is not run", async () => {
    const claim = await vanishedAttempt("v1");
    const downstream = new Map([[claim.key, { vmId: "vm-7" }]]);
    let runs = 0;
    const result = await t.gate.run({ runId: "v1" }, () =>
      t.gate.call<unknown>({ tool: "provision_vm", step: "provision" }, async () => ++runs, {
        verify: async ({ idempotencyKey }) =>
          downstream.has(idempotencyKey) ? { found: true, result: downstream.get(idempotencyKey) } : { found: false },
      }),
    );
    expect(runs).toBe(0);
    expect(result).toMatchObject({ ok: true, status: "verified", attempt: 2, value: { vmId: "vm-7" } });
    expect(await t.transport.status(claim.callId)).toMatchObject({ status: "succeeded", result: { vmId: "vm-7" } });

    const again = await t.gate.run({ runId: "v1" }, () => t.gate.call({ tool: "provision_vm", step: "provision" }, async () => ++runs));
    expect(again).toMatchObject({ status: "replayed", value: { vmId: "vm-7" } });
  });

  it("when verify finds nothing the tool runs, as a recovered attempt on the same key", async () => {
    const claim = await vanishedAttempt("v2");
    const keys: string[] = [];
    const result = await t.gate.run({ runId: "v2" }, () =>
      t.gate.call(
        { tool: "provision_vm", step: "provision" },
        async ({ idempotencyKey, recovered }) => {
          keys.push(idempotencyKey);
          return { vmId: "vm-8", recovered };
        },
        { verify: async () => ({ found: false }) },
      ),
    );
    expect(result).toMatchObject({ status: "executed", attempt: 2, recovered: true, value: { vmId: "vm-8", recovered: true } });
    expect(keys).toEqual([claim.key]);
  });

  it("a failing verify is classified like a tool error (retryable → released for the next attempt)", async () => {
    await vanishedAttempt("v3");
    const gate = t.client({ toolRetry: false });
    const result = await gate.run({ runId: "v3" }, () =>
      gate.call({ tool: "provision_vm", step: "provision" }, async () => "ran", {
        verify: async () => {
          throw Object.assign(new Error("status API unreachable"), { code: "ECONNREFUSED" });
        },
      }),
    );
    expect(result).toMatchObject({ ok: false, status: "failed", error: { retryable: true } });
    const next = await gate.run({ runId: "v3" }, () => gate.call({ tool: "provision_vm", step: "provision" }, async () => "ran"));
    expect(next).toMatchObject({ status: "executed", attempt: 3, value: "ran" });
  });
});
