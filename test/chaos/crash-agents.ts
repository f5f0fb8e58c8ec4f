import { writeFileSync } from "node:fs";
import path from "node:path";
import type { ModelMessage } from "ai";
import { createGate } from "../../lib/sdk";
import { runAgent } from "./agent";
import { type Mode, ToolBackend } from "./backend";
import type { Order } from "./harness";
import { type Brain, succeeded } from "./model";
import { chance, rngFor } from "./prng";
import { type FaultPlan, shopTools } from "./tools";
import { untilDone } from "./scenarios/common";

/** Agents in the crash scenario run on 2-second leases, kept alive by heartbeats while they live. */
export const CRASH_LEASE_SECONDS = 2;

export interface CrashJob {
  baseUrl: string;
  apiKey: string;
  backendFile: string;
  tmpDir: string;
  seed: number;
  mode: Mode;
  batch: string;
  orders: Order[];
}

/** Look the order up, then charge it. */
export const lookupThenCharge: Brain = (view, rng) =>
  succeeded(view, "lookup_order") ? untilDone("charge_card")(view, rng) : { call: [{ tool: "lookup_order", input: { orderId: view.task.orderId } }] };

export function transcriptFile(tmpDir: string, runId: string): string {
  return path.join(tmpDir, `transcript_${runId}.json`);
}

/**
 * The doomed agent process: runs every order of the batch until it is inside charge_card — half of
 * them after the payments API charged, half before — and stays there until it is SIGKILLed. Like a
 * durable runtime, it persists each run's transcript before every model call.
 */
export async function runCrashingAgents(job: CrashJob): Promise<void> {
  const backend = new ToolBackend(job.backendFile);
  const gate =
    job.mode === "gate" ? createGate({ baseUrl: job.baseUrl, apiKey: job.apiKey, leaseSeconds: CRASH_LEASE_SECONDS, toolRetry: false }) : undefined;
  const faults: FaultPlan = (tool, orderId) =>
    tool === "charge_card" ? { kind: "crash", effectFirst: chance(rngFor(job.seed, "crash", orderId), 0.5) } : { kind: "none" };
  await Promise.all(
    job.orders.map((order) =>
      runAgent({
        ...order,
        backend,
        scenario: "crash",
        mode: job.mode,
        seed: job.seed,
        brain: lookupThenCharge,
        tools: shopTools({ backend, scenario: "crash", mode: job.mode, runId: order.runId, faults, batch: job.batch }),
        gate,
        onTranscript: (messages: ModelMessage[]) => writeFileSync(transcriptFile(job.tmpDir, order.runId), JSON.stringify(messages)),
      }),
    ),
  );
}
