import { runAgent } from "../agent";
import { type Scenario, pool } from "../harness";
import { type Brain, callsOf, paraphrase } from "../model";
import { between, rngFor } from "../prng";
import type { FaultPlan } from "../tools";
import { shopTools } from "../tools";

/**
 * The model emits the same tool call two or three times in one step; the AI SDK runs them in
 * parallel. How many copies follows from the order's position (its amount), not the run's random
 * stream, so the gated, shadow and no-gate runs of one seed issue the same calls and their side
 * effects compare one for one.
 */
const doubleSend: Brain = (view, rng) => {
  if (callsOf(view, "send_email") > 0) return { say: "sent" };
  const input = paraphrase("send_email", view.task, rng);
  const copies = 2 + (view.task.amount % 2);
  return { call: Array.from({ length: copies }, () => ({ tool: "send_email", input })) };
};

export const parallelRace: Scenario = {
  id: "race",
  title: "two or three identical tool calls in one step, run in parallel",
  small: 150,
  baselineDuplicates: true,
  async run({ env, mode, orders, tally, gate }) {
    // Shadow mode goes through the gate too: it records what it would have done and runs every call.
    const client = mode === "baseline" ? undefined : gate();
    const faults: FaultPlan = (_tool, orderId, nth) => ({ kind: "none", delayMs: between(rngFor(env.seed, "race", orderId, nth), 20, 60) });
    await pool(orders, 24, async (order) => {
      await runAgent({
        ...order,
        backend: env.backend,
        scenario: "race",
        mode,
        seed: env.seed,
        brain: doubleSend,
        tools: shopTools({ backend: env.backend, scenario: "race", mode, runId: order.runId, faults }),
        gate: client,
        tally,
      });
    });
  },
};
