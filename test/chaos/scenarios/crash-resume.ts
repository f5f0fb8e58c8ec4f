import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ModelMessage } from "ai";
import { runAgent } from "../agent";
import { CRASH_LEASE_SECONDS, type CrashJob, lookupThenCharge, transcriptFile } from "../crash-agents";
import { type ChaosEnv, type Order, type Scenario, pool, sleep } from "../harness";
import type { Mode } from "../backend";
import { shopTools } from "../tools";

const BATCH = 50;

async function crashBatch(env: ChaosEnv, mode: Mode, batch: string, orders: Order[]): Promise<void> {
  const job: CrashJob = { baseUrl: env.baseUrl, apiKey: env.apiKey, backendFile: env.backend.file, tmpDir: env.tmpDir, seed: env.seed, mode, batch, orders };
  const jobFile = path.join(env.tmpDir, `crash-job-${mode}-${batch}.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", path.join("test", "chaos", "crash-child.ts"), jobFile], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (chunk) => (log += chunk));
  child.stderr!.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 90_000;
  // Kill it only once every agent of the batch is inside charge_card.
  while (env.backend.countInflight("crash", mode, batch) < orders.length) {
    if (child.exitCode !== null) throw new Error(`crash child exited early (${child.exitCode}):\n${log}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`crash child: only ${env.backend.countInflight("crash", mode, batch)}/${orders.length} agents reached the tool:\n${log}`);
    }
    await sleep(25);
  }
  child.kill("SIGKILL");
  await exited;
  if (child.signalCode !== "SIGKILL") throw new Error(`crash child was not killed by SIGKILL (${child.exitCode}):\n${log}`);
}

/**
 * The agent process dies mid-tool — for real: a child process running a batch of agents is
 * SIGKILLed while each is inside charge_card, half of them after the card was charged. Nothing is
 * completed; under the gate each lease just lapses. A fresh agent instance then resumes every run
 * from its persisted transcript with the same runId; the model decides the charge again.
 */
export const crashResume: Scenario = {
  id: "crash",
  title: "agent process SIGKILLed mid-tool, run resumed from its transcript",
  small: 100,
  baselineDuplicates: true,
  async run({ env, mode, orders, tally, gate }) {
    for (let start = 0; start < orders.length; start += BATCH) {
      const batch = orders.slice(start, start + BATCH);
      const batchId = `b${start / BATCH}`;
      await crashBatch(env, mode, batchId, batch);
      const resumed = mode === "gate" ? gate({ leaseSeconds: CRASH_LEASE_SECONDS, toolRetry: false }) : undefined;
      await pool(batch, BATCH, async (order) => {
        const transcript = JSON.parse(readFileSync(transcriptFile(env.tmpDir, order.runId), "utf8")) as ModelMessage[];
        await runAgent({
          ...order,
          backend: env.backend,
          scenario: "crash",
          mode,
          seed: env.seed,
          brain: lookupThenCharge,
          tools: shopTools({ backend: env.backend, scenario: "crash", mode, runId: order.runId }),
          gate: resumed,
          tally,
          messages: transcript,
        });
      });
    }
  },
};
