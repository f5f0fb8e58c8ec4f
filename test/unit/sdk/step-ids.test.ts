import { afterEach, describe, expect, it } from "vitest";
import { stepFor } from "../../../lib/sdk/adapters/tool-config";
import { type TestGate, inProcessGate } from "./helpers";

let t: TestGate;
afterEach(async () => t?.close());

/** Durable-engine step ids as key material: `gate.run({ stepId })`, `CallSpec.stepId`, an adapter's `stepId`. */
describe("durable-engine step ids", () => {
  it("a call inside gate.run({ stepId }) is keyed on the engine's step: a replayed step runs once, whatever its args", async () => {
    t = await inProcessGate();
    let effects = 0;
    const exec = () => ({ sent: ++effects });
    // The engine replays step "wf_1/step_3" after a crash; the retried code built its args anew.
    const first = await t.gate.run({ runId: "wf_1", stepId: "step_3" }, () => t.gate.call({ tool: "send_email", args: { to: "a@x", at: 1 } }, exec));
    const again = await t.gate.run({ runId: "wf_1", stepId: "step_3" }, () => t.gate.call({ tool: "send_email", args: { to: "a@x", at: 2 } }, exec));
    expect(first).toMatchObject({ ok: true, status: "executed", value: { sent: 1 } });
    expect(again).toMatchObject({ ok: true, status: "replayed", value: { sent: 1 }, key: first.ok ? first.key : "" });
    // Another engine step is another effect, even with the very same args.
    const next = await t.gate.run({ runId: "wf_1", stepId: "step_4" }, () => t.gate.call({ tool: "send_email", args: { to: "a@x", at: 1 } }, exec));
    expect(next).toMatchObject({ ok: true, status: "executed", value: { sent: 2 } });
    expect(effects).toBe(2);
  });

  it("without a stepId the same calls are keyed on their args (the test above fails without the engine's id)", async () => {
    t = await inProcessGate();
    let effects = 0;
    const exec = () => ({ sent: ++effects });
    await t.gate.run({ runId: "wf_2" }, () => t.gate.call({ tool: "send_email", args: { to: "a@x", at: 1 } }, exec));
    await t.gate.run({ runId: "wf_2" }, () => t.gate.call({ tool: "send_email", args: { to: "a@x", at: 2 } }, exec));
    expect(effects).toBe(2);
  });

  it("key sources, first found wins: step, then stepId (the call's, then the run's), then scope", async () => {
    t = await inProcessGate();
    // Args vary (a step or scope keys the call, not its args) so the run's loop detector sees no repeats.
    let n = 0;
    const keyOf = async (spec: Parameters<typeof t.gate.call>[0], runStep?: string) => {
      const result = await t.gate.run({ runId: "wf_3", ...(runStep ? { stepId: runStep } : {}) }, () => t.gate.call({ ...spec, args: { n: n++ } }, () => "ok"));
      return result.ok ? result.key : `(${result.status})`;
    };
    const byStep = await keyOf({ tool: "t", step: "s1", stepId: "e1", scope: "order:1" }, "r1");
    expect(await keyOf({ tool: "t", step: "s1" })).toBe(byStep);
    const byCallStepId = await keyOf({ tool: "t", stepId: "e1", scope: "order:1" }, "r1");
    expect(byCallStepId).not.toBe(byStep);
    expect(await keyOf({ tool: "t", step: "e1" })).toBe(byCallStepId);
    const byRunStepId = await keyOf({ tool: "t", scope: "order:1" }, "r1");
    expect(await keyOf({ tool: "t", step: "r1" })).toBe(byRunStepId);
    // A subagent started inside the engine step inherits it.
    const nested = await t.gate.run({ runId: "wf_3", stepId: "r1" }, () => t.gate.run({ agentId: "sub" }, () => t.gate.call({ tool: "t", args: { n: n++ } }, () => "ok")));
    expect(nested.ok && nested.key).toBe(byRunStepId);
  });

  it("adapters: stepId 'engine' takes the framework's id, a function picks one, and an explicit step still wins", () => {
    expect(stepFor("t", { stepId: "engine", scope: "orderId" }, { orderId: "o1" }, "call_1", "task_9:call_1")).toEqual({ stepId: "task_9:call_1" });
    // No engine id here: the scope is the key.
    expect(stepFor("t", { stepId: "engine", scope: "orderId" }, { orderId: "o1" }, "call_1")).toEqual({ scope: "orderId:o1" });
    expect(stepFor("t", { stepId: (input) => `act_${(input as { n: number }).n}` }, { n: 3 }, "call_1")).toEqual({ stepId: "act_3" });
    expect(stepFor("t", { step: () => ({ step: "mine" }), stepId: "engine" }, {}, "call_1", "task_9")).toEqual({ step: "mine" });
  });
});
