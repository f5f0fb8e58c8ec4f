import { runAgent } from "../agent";
import { type Scenario, pool } from "../harness";
import { type Rng, chance, rngFor } from "../prng";
import { type FaultPlan, shopTools } from "../tools";
import { untilDone } from "./common";

const networkError = (code: string) => new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });

/**
 * The agent's link to the gate is flaky too: begins that never leave (connection refused), 503s
 * from a load balancer, and completes whose answer is lost after the gate stored them. The SDK
 * resends the very same request each time, which is what makes that safe.
 */
function flakyGateLink(rng: Rng): typeof fetch {
  return async (input, init) => {
    const url = String(input);
    if (url.endsWith("/begin")) {
      const roll = rng();
      if (roll < 0.1) throw networkError("ECONNREFUSED");
      if (roll < 0.2) {
        const body = { error: { code: "store_unavailable", message: "upstream unavailable", retryable: true } };
        return new Response(JSON.stringify(body), { status: 503, headers: { "content-type": "application/json" } });
      }
    }
    const res = await fetch(input, init);
    if (url.endsWith("/complete") && rng() < 0.15) {
      await res.arrayBuffer();
      throw networkError("ECONNRESET");
    }
    return res;
  };
}

/**
 * The email API is unreachable on some attempts (the request never arrived), and the link to the
 * gate drops requests and answers. Nothing was done, so the re-planned call must run — exactly once.
 */
export const networkBeforeExecution: Scenario = {
  id: "network",
  title: "network error before execution (tool and gate link) → re-plan",
  small: 150,
  baselineDuplicates: false,
  async run({ env, mode, orders, tally, gate }) {
    const client =
      mode === "gate" ? gate({ toolRetry: false, fetch: flakyGateLink(rngFor(env.seed, "gate-link")), gateRetry: { initialDelayMs: 20 } }) : undefined;
    const faults: FaultPlan = (_tool, orderId, nth) =>
      nth < 3 && chance(rngFor(env.seed, "network", orderId, nth), 0.5) ? { kind: "network_before", delayMs: 3 } : { kind: "none", delayMs: 3 };
    await pool(orders, 24, async (order) => {
      await runAgent({
        ...order,
        backend: env.backend,
        scenario: "network",
        mode,
        seed: env.seed,
        brain: untilDone("send_email"),
        tools: shopTools({ backend: env.backend, scenario: "network", mode, runId: order.runId, faults }),
        gate: client,
        tally,
      });
    });
  },
};
