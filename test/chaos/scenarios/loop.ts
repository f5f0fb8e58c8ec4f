import { runAgent } from "../agent";
import { type Scenario, pool } from "../harness";
import { type Brain, callsOf, paraphrase } from "../model";
import { between, rngFor } from "../prng";
import { shopTools } from "../tools";

/** The model does not trust the result and sends the same email again, 3–5 times, identical args. */
function loopingBrain(seed: number): Brain {
  return (view, rng) => {
    const repeats = between(rngFor(seed, "loop", view.task.orderId), 3, 5);
    if (callsOf(view, "send_email") >= repeats) return { say: "sent (I think)" };
    const input = view.calls.find((c) => c.tool === "send_email")?.input ?? paraphrase("send_email", view.task, rng);
    return { call: [{ tool: "send_email", input }] };
  };
}

/**
 * A loop of the same call. Once per-tool policies land the gate's loop detector blocks it; here
 * every repeat after the first is a replay: the loop burns tokens, not side effects.
 */
export const loop: Scenario = {
  id: "loop",
  title: "a loop of the same call (3–5 identical repeats)",
  small: 150,
  baselineDuplicates: true,
  async run({ env, mode, orders, tally, gate }) {
    const client = mode === "gate" ? gate() : undefined;
    await pool(orders, 24, async (order) => {
      await runAgent({
        ...order,
        backend: env.backend,
        scenario: "loop",
        mode,
        seed: env.seed,
        brain: loopingBrain(env.seed),
        tools: shopTools({ backend: env.backend, scenario: "loop", mode, runId: order.runId }),
        gate: client,
        tally,
      });
    });
  },
};
