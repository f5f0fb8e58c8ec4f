import { runAgent } from "../agent";
import type { Scenario } from "../harness";
import { pool } from "../harness";
import { chance, rngFor } from "../prng";
import { type FaultPlan, shopTools } from "../tools";
import { untilDone } from "./common";

/**
 * The payments API charges the card, then the response is lost: the agent sees a timeout. The
 * model decides again — new toolCallId, paraphrased args. Under the gate the step (charge_card on
 * this order) has one key, so the retry carries the same idempotency key to the API, which answers
 * with the original charge. Without it, every re-plan is a new charge.
 */
export const timeoutAfterExecution: Scenario = {
  id: "timeout",
  title: "timeout after execution (response lost) → re-plan, new toolCallId, paraphrased args",
  small: 150,
  baselineDuplicates: true,
  async run({ env, mode, orders, tally, gate }) {
    const client = mode === "gate" ? gate({ toolRetry: false }) : undefined;
    const faults: FaultPlan = (_tool, orderId, nth) =>
      nth < 3 && chance(rngFor(env.seed, "timeout", orderId, nth), 0.6) ? { kind: "timeout_after", delayMs: 5 } : { kind: "none", delayMs: 5 };
    await pool(orders, 24, async (order) => {
      await runAgent({
        ...order,
        backend: env.backend,
        scenario: "timeout",
        mode,
        seed: env.seed,
        brain: untilDone("charge_card"),
        tools: shopTools({ backend: env.backend, scenario: "timeout", mode, runId: order.runId, faults }),
        gate: client,
        tally,
      });
    });
  },
};
