import { type Gate, type GateClientOptions, createGate } from "../../lib/sdk";
import { Tally } from "./agent";
import type { Mode, ToolBackend } from "./backend";
import type { Task } from "./model";

export interface ChaosEnv {
  baseUrl: string;
  apiKey: string;
  backend: ToolBackend;
  seed: number;
  /** For transcripts and child-process job files. */
  tmpDir: string;
}

export interface Order {
  index: number;
  runId: string;
  task: Task;
}

export interface ScenarioRun {
  env: ChaosEnv;
  mode: Mode;
  orders: Order[];
  tally: Tally;
  /** A new agent-side gate client over HTTP (gate mode only). */
  gate(options?: GateClientOptions & { fetch?: typeof fetch }): Gate;
}

export interface Scenario {
  id: string;
  title: string;
  /** User requests per run at size "small" (npm test); full is FULL_FACTOR times that. */
  small: number;
  /** Baseline duplicates are expected (the fault bites without the gate). */
  baselineDuplicates: boolean;
  run(ctx: ScenarioRun): Promise<void>;
}

export interface ScenarioStats {
  id: string;
  title: string;
  mode: Mode;
  requests: number;
  toolCalls: number;
  effects: number;
  /** Effects beyond the first, summed over requests. */
  duplicates: number;
  /** Requests that ended with no effect at all. */
  missing: number;
  /** Gated calls the gate answered instead of running them: replayed (directly or after waiting), verified, refused, blocked. */
  gatePrevented: number;
  /** Re-executions absorbed downstream by the gate's key (the API saw the key again). */
  keyDedups: number;
  /** The SDK's CallResult statuses of the gated calls, for diagnosis. */
  statuses: Record<string, number>;
  ms: number;
}

export const FULL_FACTOR = 5;

export async function runScenario(scenario: Scenario, env: ChaosEnv, mode: Mode, count: number): Promise<ScenarioStats> {
  const started = Date.now();
  const orders: Order[] = Array.from({ length: count }, (_, index) => {
    const orderId = `${scenario.id}-${mode}-${index}`;
    return {
      index,
      runId: `run_${orderId}`,
      task: { orderId, amount: 10 + (index % 90), email: `customer${index}@example.com` },
    };
  });
  const tally = new Tally();
  const gate = (options: GateClientOptions & { fetch?: typeof fetch } = {}) =>
    createGate({ baseUrl: env.baseUrl, apiKey: env.apiKey, ...options });
  await scenario.run({ env, mode, orders, tally, gate });

  const perOrder = env.backend.effectsByOrder(scenario.id, mode);
  let effects = 0;
  let duplicates = 0;
  let missing = 0;
  for (const order of orders) {
    const n = perOrder.get(order.task.orderId) ?? 0;
    effects += n;
    duplicates += Math.max(0, n - 1);
    if (n === 0) missing++;
  }
  return {
    id: scenario.id,
    title: scenario.title,
    mode,
    requests: count,
    toolCalls: env.backend.modelCalls(scenario.id, mode),
    effects,
    duplicates,
    missing,
    gatePrevented: ["replayed", "verified", "refused", "conflict", "blocked"].reduce((sum, status) => sum + tally.get(status), 0),
    keyDedups: env.backend.keyHits(scenario.id, mode),
    statuses: Object.fromEntries(tally.counts),
    ms: Date.now() - started,
  };
}

/** Runs `work` over the items, `concurrency` at a time; the first failure fails the whole. */
export async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(workers);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
