import { runAgent } from "../agent";
import { type Scenario, pool, sleep } from "../harness";
import { between, rngFor } from "../prng";
import { type FaultPlan, shopTools } from "../tools";
import { untilDone } from "./common";

/** Agents run on 3-second leases (kept alive by heartbeats every second); the export takes 3.6–4.6 s. */
const LEASE_SECONDS = 3;

/**
 * The export succeeds, slowly — longer than the lease. Meanwhile the job queue's visibility
 * timeout redelivers the same request to a second worker, which starts the run again. The first
 * worker's heartbeats keep its lease, so the second waits and gets the result instead of exporting
 * again.
 */
export const slowSuccess: Scenario = {
  id: "slow",
  title: "slow success longer than the lease, request redelivered meanwhile",
  small: 60,
  baselineDuplicates: true,
  async run({ env, mode, orders, tally, gate }) {
    const workers = mode === "gate" ? [gate({ leaseSeconds: LEASE_SECONDS }), gate({ leaseSeconds: LEASE_SECONDS })] : [undefined, undefined];
    const faults: FaultPlan = (_tool, orderId, nth) => ({ kind: "none", delayMs: between(rngFor(env.seed, "slow", orderId, nth), 3_600, 4_600) });
    await pool(orders, 80, async (order) => {
      const agent = (worker: 0 | 1) =>
        runAgent({
          ...order,
          backend: env.backend,
          scenario: "slow",
          mode,
          seed: env.seed,
          brain: untilDone("export_report"),
          tools: shopTools({ backend: env.backend, scenario: "slow", mode, runId: order.runId, faults }),
          gate: workers[worker],
          tally,
        });
      const first = agent(0);
      await sleep(between(rngFor(env.seed, "slow-redelivery", order.task.orderId), 3_200, 4_000));
      await Promise.all([first, agent(1)]);
    });
  },
};
