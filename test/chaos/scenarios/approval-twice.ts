import type { ModelMessage } from "ai";
import { runAgent } from "../agent";
import { type Scenario, pool } from "../harness";
import { type Brain, callsOf, paraphrase } from "../model";
import { chance, rngFor } from "../prng";
import { shopTools } from "../tools";

const refundOnce: Brain = (view, rng) =>
  callsOf(view, "refund_payment") === 0 ? { call: [{ tool: "refund_payment", input: paraphrase("refund_payment", view.task, rng) }] } : { say: "refunded" };

const APPROVAL = { refund_payment: "user-approval" } as const;

/**
 * Refunds need a human: the AI SDK stops with a tool-approval request. The human clicks
 * "approve" twice (two resumes at once), or the interrupted run is resumed twice (one after the
 * other) — either way the same approved tool call is delivered twice. The refunds API has no
 * idempotency keys, so only the gate stands between a double click and a double refund.
 */
export const approvalTwice: Scenario = {
  id: "approval",
  title: "human approval clicked twice / interrupt resumed twice",
  small: 150,
  baselineDuplicates: true,
  async run({ env, mode, orders, tally, gate }) {
    const client = mode === "gate" ? gate() : undefined;
    await pool(orders, 24, async (order) => {
      const base = { ...order, backend: env.backend, scenario: "approval", mode, seed: env.seed, brain: refundOnce, gate: client, tally };
      const tools = () => shopTools({ backend: env.backend, scenario: "approval", mode, runId: order.runId });
      const asked = await runAgent({ ...base, tools: tools(), toolApproval: APPROVAL });
      const requests = asked.content.filter((part) => part.type === "tool-approval-request");
      if (requests.length !== 1) throw new Error(`expected one approval request, got ${requests.length}`);
      const approved: ModelMessage[] = [
        { role: "user", content: JSON.stringify(order.task) },
        ...asked.response.messages,
        { role: "tool", content: requests.map((r) => ({ type: "tool-approval-response" as const, approvalId: r.approvalId, approved: true })) },
      ];
      const resume = () => runAgent({ ...base, tools: tools(), messages: approved, toolApproval: APPROVAL });
      if (chance(rngFor(env.seed, "approval", order.task.orderId), 0.5)) await Promise.all([resume(), resume()]);
      else {
        await resume();
        await resume();
      }
    });
  },
};
