import { afterEach, describe, expect, it } from "vitest";
import { currentRun, currentToolCall } from "../../../lib/sdk";
import { type TestGate, inProcessGate } from "./helpers";

let t: TestGate;
afterEach(async () => t?.close());

describe("run context", () => {
  it("subagents inherit the root runId and get their own agentId; the gate records who called", async () => {
    t = await inProcessGate();
    const { gate } = t;
    const seen = await gate.run({ runId: "root-run", agentId: "planner" }, async () => {
      const root = currentRun();
      const sub = await gate.run({ agentId: "billing" }, async () => {
        const result = await gate.call({ tool: "charge_card", scope: "order:1" }, async () => "charged");
        return { ctx: currentRun(), result, nested: gate.run({}, () => currentRun()) };
      });
      const parentCall = await gate.call({ tool: "charge_card", scope: "order:1" }, async () => "charged twice?");
      return { root, sub, parentCall };
    });
    expect(seen.root).toEqual({ runId: "root-run", agentId: "planner", depth: 0 });
    expect(seen.sub.ctx).toEqual({ runId: "root-run", agentId: "billing", parentAgentId: "planner", depth: 1 });
    expect(seen.sub.nested).toEqual({ runId: "root-run", agentId: "billing/1", parentAgentId: "billing", depth: 2 });
    // Parent and subagent decided the same step: one execution, the parent gets the subagent's result.
    expect(seen.sub.result).toMatchObject({ status: "executed", value: "charged" });
    expect(seen.parentCall).toMatchObject({ status: "replayed", value: "charged" });
    if (seen.sub.result.status !== "executed") throw new Error("unreachable");
    expect(await t.transport.status(seen.sub.result.callId)).toMatchObject({ agentId: "billing", runId: "root-run" });
  });

  it("a nested run cannot switch runId; a root run without one gets a fresh id", async () => {
    t = await inProcessGate();
    expect(() => t.gate.run({ runId: "a" }, () => t.gate.run({ runId: "b" }, () => 1))).toThrow(/shares its root's runId/);
    const ids = [t.gate.run({}, () => currentRun()!.runId), t.gate.run({}, () => currentRun()!.runId)];
    expect(ids[0]).toMatch(/^run_/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(currentRun()).toBeUndefined();
  });

  it("the executing tool can read its gated call (key, attempt) without a new parameter", async () => {
    t = await inProcessGate();
    const result = await t.gate.run({ runId: "ctx" }, () =>
      t.gate.call({ tool: "t", step: "s" }, async () => {
        await new Promise((r) => setTimeout(r, 5));
        const call = currentToolCall();
        return { key: call?.idempotencyKey, attempt: call?.attempt };
      }),
    );
    expect(result.ok && result.value).toEqual({ key: result.status === "executed" ? result.key : "", attempt: 1 });
    expect(currentToolCall()).toBeUndefined();
  });
});
