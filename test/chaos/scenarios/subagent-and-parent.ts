import { tool } from "ai";
import { z } from "zod";
import { type AgentRun, runAgent } from "../agent";
import { type Order, type Scenario, type ScenarioRun, pool } from "../harness";
import { type Brain, callsOf, paraphrase } from "../model";
import { chance, rngFor } from "../prng";
import { shopTools } from "../tools";
import { untilDone } from "./common";

/**
 * The parent delegates billing to a subagent, which confirms the order by email as part of its
 * job — and the parent, not knowing, also decides to confirm it: in the same step as the
 * delegation (in parallel) or after it. Under the gate both are one step of the same run.
 */
function parentBrain(parallel: boolean): Brain {
  return (view, rng) => {
    const confirm = { tool: "send_email", input: paraphrase("send_email", view.task, rng) };
    if (callsOf(view, "delegate_billing") === 0) {
      return { call: [{ tool: "delegate_billing", input: { orderId: view.task.orderId } }, ...(parallel ? [confirm] : [])] };
    }
    if (callsOf(view, "send_email") === 0) return { call: [confirm] };
    return { say: "order handled" };
  };
}

function agentTools(ctx: ScenarioRun, order: Order, base: Omit<AgentRun, "brain" | "tools">) {
  const tools = shopTools({ backend: ctx.env.backend, scenario: "subagent", mode: ctx.mode, runId: order.runId });
  return {
    ...tools,
    delegate_billing: tool({
      description: "Hand billing for the order to the billing subagent",
      inputSchema: z.object({ orderId: z.string() }),
      execute: async () => {
        const sub = await runAgent({ ...base, agentId: "billing", brain: untilDone("send_email"), tools });
        return { summary: sub.text };
      },
    }),
  };
}

export const subagentAndParent: Scenario = {
  id: "subagent",
  title: "a subagent and its parent both decide to send the confirmation",
  small: 150,
  baselineDuplicates: true,
  async run(ctx) {
    const { env, mode, orders, tally } = ctx;
    const client = mode === "gate" ? ctx.gate() : undefined;
    await pool(orders, 24, async (order) => {
      const base = { ...order, backend: env.backend, scenario: "subagent", mode, seed: env.seed, gate: client, tally };
      const parallel = chance(rngFor(env.seed, "subagent", order.task.orderId), 0.5);
      await runAgent({ ...base, agentId: "parent", brain: parentBrain(parallel), tools: agentTools(ctx, order, base) });
    });
  },
};
