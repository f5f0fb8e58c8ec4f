import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError, currentToolCall } from "../../../lib/sdk";
import { gateTools } from "../../../lib/sdk/adapters/ai-sdk";
import type { CallResult } from "../../../lib/sdk/types";
import { type TestGate, inProcessGate } from "./helpers";

let t: TestGate;
afterEach(async () => t?.close());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
type Call = { id: string; tool: string; input: object };

/** A model that plays a fixed script: each turn is a list of tool calls, then it says "done". */
function scripted(turns: Call[][]) {
  let turn = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const calls = turns[turn++];
      if (!calls) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      return {
        content: calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.tool, input: JSON.stringify(c.input) })),
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

type Part = { type: string; toolCallId?: string; output?: unknown; error?: unknown };
type ToolOutput = { id: string; output?: unknown; error?: string };

function toolOutputs(result: { steps: ReadonlyArray<{ content: ReadonlyArray<unknown> }> }): ToolOutput[] {
  return result.steps.flatMap((s) =>
    (s.content as Part[]).flatMap((part): ToolOutput[] =>
      part.type === "tool-result"
        ? [{ id: part.toolCallId!, output: part.output }]
        : part.type === "tool-error"
          ? [{ id: part.toolCallId!, error: String((part.error as Error).message) }]
          : [],
    ),
  );
}

function shopTools(counts: Record<string, number>, keys: string[]) {
  return {
    charge_card: tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number(), memo: z.string().optional() }),
      execute: async ({ orderId, amount }) => {
        counts.charge = (counts.charge ?? 0) + 1;
        keys.push(currentToolCall()!.idempotencyKey);
        return { chargeId: `ch_${orderId}`, amount };
      },
    }),
    lookup_order: tool({
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({ orderId, lookups: (counts.lookup = (counts.lookup ?? 0) + 1) }),
    }),
    cancel_order: tool({
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }): Promise<{ cancelled: string }> => {
        counts.cancel = (counts.cancel ?? 0) + 1;
        if (orderId) throw new Error("order already shipped");
        return { cancelled: orderId };
      },
    }),
    ask_user: tool({ inputSchema: z.object({ question: z.string() }) }),
  };
}

describe("AI SDK adapter: gateTools()", () => {
  it("a re-planned call (new toolCallId, paraphrased args) runs once; the model sees the same output twice", async () => {
    t = await inProcessGate();
    const counts: Record<string, number> = {};
    const keys: string[] = [];
    const results: CallResult<unknown>[] = [];
    const tools = gateTools(t.gate, shopTools(counts, keys), {
      tools: { charge_card: { scope: "orderId" }, lookup_order: { read: true } },
      onResult: (r) => results.push(r),
    });
    const model = scripted([
      [{ id: "tc_1", tool: "charge_card", input: { orderId: "o-1", amount: 42 } }],
      [{ id: "tc_2", tool: "charge_card", input: { amount: 42, orderId: "o-1", memo: "retrying the charge" } }],
    ]);
    const out = await t.gate.run({ runId: "ai-1" }, () => generateText({ model, tools, prompt: "charge o-1", stopWhen: stepCountIs(5) }));

    expect(counts.charge).toBe(1);
    const outputs = toolOutputs(out);
    expect(outputs).toEqual([
      { id: "tc_1", output: { chargeId: "ch_o-1", amount: 42 } },
      { id: "tc_2", output: { chargeId: "ch_o-1", amount: 42 } },
    ]);
    expect(results.map((r) => r.status)).toEqual(["executed", "replayed"]);
    const first = results[0]!;
    if (first.status !== "executed") throw new Error("unreachable");
    expect(keys).toEqual([first.key]);
    expect(await t.transport.status(first.callId)).toMatchObject({ scope: "orderId:o-1", toolCallId: "tc_1", tool: "charge_card" });
  });

  it("read tools always run and are still recorded, one record per toolCallId", async () => {
    t = await inProcessGate();
    const counts: Record<string, number> = {};
    const results: CallResult<unknown>[] = [];
    const tools = gateTools(t.gate, shopTools(counts, []), { tools: { lookup_order: { read: true } }, onResult: (r) => results.push(r) });
    const model = scripted([
      [{ id: "r_1", tool: "lookup_order", input: { orderId: "o-2" } }],
      [{ id: "r_2", tool: "lookup_order", input: { orderId: "o-2" } }],
    ]);
    const out = await t.gate.run({ runId: "ai-2" }, () => generateText({ model, tools, prompt: "look", stopWhen: stepCountIs(5) }));
    expect(counts.lookup).toBe(2);
    expect(toolOutputs(out).map((o) => (o.output as { lookups: number }).lookups)).toEqual([1, 2]);
    expect(results.map((r) => r.status)).toEqual(["executed", "executed"]);
    const ids = results.map((r) => (r.status === "executed" ? r.callId : ""));
    expect(new Set(ids).size).toBe(2);
  });

  it("a failed tool is a tool error for the model, fresh and replayed alike; it does not run again", async () => {
    t = await inProcessGate();
    const counts: Record<string, number> = {};
    const tools = gateTools(t.gate, shopTools(counts, []), { tools: { cancel_order: { scope: "orderId" } } });
    const model = scripted([
      [{ id: "c_1", tool: "cancel_order", input: { orderId: "o-3" } }],
      [{ id: "c_2", tool: "cancel_order", input: { orderId: "o-3" } }],
    ]);
    const out = await t.gate.run({ runId: "ai-3" }, () => generateText({ model, tools, prompt: "cancel", stopWhen: stepCountIs(5) }));
    expect(counts.cancel).toBe(1);
    expect(toolOutputs(out)).toEqual([
      { id: "c_1", error: "order already shipped" },
      { id: "c_2", error: "order already shipped" },
    ]);
  });

  it("refused (policy onDuplicate: refuse) reaches the model as a structured notice; client tools stay untouched", async () => {
    t = await inProcessGate({ policy: { onDuplicate: "refuse" } });
    const raw = shopTools({}, []);
    const tools = gateTools(t.gate, raw, { tools: { charge_card: { scope: "orderId" } } });
    expect(tools.ask_user).toBe(raw.ask_user);
    const model = scripted([
      [{ id: "x_1", tool: "charge_card", input: { orderId: "o-4", amount: 1 } }],
      [{ id: "x_2", tool: "charge_card", input: { orderId: "o-4", amount: 1 } }],
    ]);
    const out = await t.gate.run({ runId: "ai-4" }, () => generateText({ model, tools, prompt: "charge", stopWhen: stepCountIs(5) }));
    const second = toolOutputs(out)[1]!.output as { status: string; message: string };
    expect(second.status).toBe("refused");
    expect(second.message).toMatch(/already performed/);
  });

  it("budget_exceeded reaches the model as a clear tool result: what was spent, the limit, and to stop", async () => {
    // Every charge costs 10 USD; the run may spend 20: the third distinct charge is refused.
    t = await inProcessGate({ policy: { budget: { maxCallsPerRun: null, maxCostPerRun: 20, currency: "USD", costPerExecution: 10 } } });
    const counts: Record<string, number> = {};
    const results: CallResult<unknown>[] = [];
    const tools = gateTools(t.gate, shopTools(counts, []), { tools: { charge_card: { scope: "orderId" } }, onResult: (r) => results.push(r) });
    const model = scripted([
      [{ id: "b_1", tool: "charge_card", input: { orderId: "o-6", amount: 1 } }],
      [{ id: "b_2", tool: "charge_card", input: { orderId: "o-7", amount: 1 } }],
      // A replay of a paid step costs nothing and is still answered.
      [{ id: "b_3", tool: "charge_card", input: { orderId: "o-6", amount: 1 } }],
      [{ id: "b_4", tool: "charge_card", input: { orderId: "o-8", amount: 1 } }],
    ]);
    const out = await t.gate.run({ runId: "ai-budget" }, () => generateText({ model, tools, prompt: "charge", stopWhen: stepCountIs(6) }));
    expect(counts.charge).toBe(2);
    expect(results.map((r) => r.status)).toEqual(["executed", "executed", "replayed", "blocked"]);
    const refused = toolOutputs(out)[3]!;
    expect(refused.id).toBe("b_4");
    expect(refused.output).toEqual({
      status: "blocked",
      reason: "budget_exceeded",
      message: "stop: this run has spent 20.00 USD of 20.00. Do not call more tools; report what you have to the user.",
    });
  });

  it("costs reported on complete count against the run's budget: a tool's `cost` config and ctx.reportCost", async () => {
    // No fixed cost: the run may spend 20 USD, and each charge reports what it cost.
    t = await inProcessGate({ policy: { budget: { maxCallsPerRun: null, maxCostPerRun: 20, currency: "USD", costPerExecution: 0 } } });
    const counts: Record<string, number> = {};
    const results: CallResult<unknown>[] = [];
    const tools = gateTools(t.gate, shopTools(counts, []), {
      tools: { charge_card: { scope: "orderId", cost: (input) => ({ amount: (input as { amount: number }).amount, currency: "USD" }) } },
      onResult: (r) => results.push(r),
    });
    const model = scripted([
      [{ id: "c_1", tool: "charge_card", input: { orderId: "o-10", amount: 12.5 } }],
      [{ id: "c_2", tool: "charge_card", input: { orderId: "o-11", amount: 7.5 } }],
      [{ id: "c_3", tool: "charge_card", input: { orderId: "o-12", amount: 1 } }],
    ]);
    const out = await t.gate.run({ runId: "ai-cost" }, () => generateText({ model, tools, prompt: "charge", stopWhen: stepCountIs(6) }));
    expect(counts.charge).toBe(2);
    expect(results.map((r) => r.status)).toEqual(["executed", "executed", "blocked"]);
    expect(toolOutputs(out)[2]!.output).toMatchObject({ reason: "budget_exceeded", message: expect.stringContaining("spent 20.00 USD of 20.00") });

    // The same through gate.call: a failed execution's cost is reported from inside the tool.
    const failed = await t.gate.run({ runId: "ai-cost-2" }, () =>
      t.gate.call({ tool: "charge_card", scope: "order:o-13", args: { amount: 25 } }, (ctx) => {
        ctx.reportCost?.({ amount: 25, currency: "USD" });
        throw new ToolError("declined after the fee", { retryable: false });
      }, { toolRetry: false }),
    );
    expect(failed.status).toBe("failed");
    const next = await t.gate.run({ runId: "ai-cost-2" }, () => t.gate.call({ tool: "charge_card", scope: "order:o-14", args: {} }, () => "charged"));
    expect(next).toMatchObject({ status: "blocked", reason: "budget_exceeded" });
  });

  it("two identical calls in one step (parallel) run once; both get the result", async () => {
    t = await inProcessGate();
    const counts: Record<string, number> = {};
    const tools = gateTools(t.gate, shopTools(counts, []), { tools: { charge_card: { scope: "orderId" } } });
    const model = scripted([
      [
        { id: "p_1", tool: "charge_card", input: { orderId: "o-5", amount: 7 } },
        { id: "p_2", tool: "charge_card", input: { orderId: "o-5", amount: 7 } },
      ],
    ]);
    const out = await t.gate.run({ runId: "ai-5" }, () => generateText({ model, tools, prompt: "charge", stopWhen: stepCountIs(5) }));
    expect(counts.charge).toBe(1);
    expect(toolOutputs(out).map((o) => o.output)).toEqual([
      { chargeId: "ch_o-5", amount: 7 },
      { chargeId: "ch_o-5", amount: 7 },
    ]);
  });
});
