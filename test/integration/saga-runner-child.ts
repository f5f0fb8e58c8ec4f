// A compensation plan runner in its own process: `node --import tsx test/integration/saga-runner-child.ts <job.json>`.
// Prints "done <state>" and exits 0 when the plan ends; the saga test may SIGKILL it mid-plan.
import { readFileSync } from "node:fs";
import { createGate } from "../../lib/sdk";
import { callBackend } from "../helpers/order-backend";

interface Job {
  baseUrl: string;
  apiKey: string;
  runId: string;
  backendUrl: string;
}

const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Job;
// Short leases kept alive by heartbeats: a killed runner's step is taken over within seconds.
const gate = createGate({
  baseUrl: job.baseUrl,
  apiKey: job.apiKey,
  leaseSeconds: 2,
  maxWaitMs: 60_000,
  compensators: {
    refund_charge: (args, ctx) => callBackend(job.backendUrl, "refund", ctx.idempotencyKey, args, ctx.signal),
    release_inventory: (args, ctx) => callBackend(job.backendUrl, "release", ctx.idempotencyKey, args, ctx.signal),
  },
});

gate.compensate(job.runId).then(
  (outcome) => {
    console.log(`done ${outcome.state}`);
    process.exit(0);
  },
  (error) => {
    console.error("saga runner failed:", error);
    process.exit(2);
  },
);
