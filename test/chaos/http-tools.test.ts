import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGate } from "../../lib/sdk";
import { type GatewayWorld, startGatewayWorld } from "../helpers/gateway-world";
import { type ToolServer, startToolServer } from "../helpers/http-tool-servers";
import { type Rng, between, chance, rngFor } from "./prng";

const SIZE = process.env.IDEMGATE_CHAOS_SIZE === "full" ? 200 : 24;
const SEED = Number(process.env.IDEMGATE_CHAOS_SEED ?? 20261122);

/**
 * What an unreliable HTTP client does to one intended refund: send, and when the answer does not
 * come (its own timeout) or says "try again" (409, 5xx), send the same request again with the same
 * key, until it gets a final answer.
 */
interface ClientScript {
  /** How long the client waits for its first answer before giving up on that attempt (doubling per retry). */
  timeoutMs(rng: Rng): number;
  /** The refund as sent: how slow the handler is, whether its first run fails. */
  body(rng: Rng, id: string): Record<string, unknown>;
  /** Copies of the first attempt sent at once (a retrying proxy, a double click). */
  copies: number;
}

interface HttpScenario {
  id: string;
  title: string;
  script: ClientScript;
}

const SCENARIOS: HttpScenario[] = [
  {
    id: "timeout-after-execution",
    title: "the client times out while the handler runs, then retries",
    script: { timeoutMs: (rng) => between(rng, 40, 250), body: (rng, id) => ({ id, amount: 1, delayMs: between(rng, 50, 400) }), copies: 1 },
  },
  {
    id: "released-5xx",
    title: "the first run answers 503, the retry succeeds",
    script: { timeoutMs: () => 5_000, body: (rng, id) => ({ id, amount: 1, ...(chance(rng, 0.6) ? { fail: 503 } : {}) }), copies: 1 },
  },
  {
    id: "parallel-copies",
    title: "three copies of the request at once, slow handler",
    script: { timeoutMs: () => 5_000, body: (rng, id) => ({ id, amount: 1, delayMs: between(rng, 50, 200) }), copies: 3 },
  },
];

type Send = (body: Record<string, unknown>, timeoutMs: number) => Promise<number | "timeout">;

function sender(url: string, headers: Record<string, string>): Send {
  return async (body, timeoutMs) => {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return "timeout";
    }
  };
}

/** How one family sends an intended request and counts its side effects. */
interface Target {
  /** The client for intended request `id` (its key is fixed per intended request, as a retrying client keeps it). */
  send(id: string): Send;
  /** The refund script's body, as this target's handler takes it. */
  body(script: Record<string, unknown>): Record<string, unknown>;
  /** Side effects done for intended request `id`. */
  effects(id: string): number;
}

/** Runs one intended request to a final answer; resolves with the number of HTTP attempts. */
async function intendedRequest(target: Target, scenario: HttpScenario, index: number): Promise<number> {
  const rng = rngFor(SEED, scenario.id, index);
  const id = `${scenario.id}-${index}`;
  const send = target.send(id);
  const body = target.body(scenario.script.body(rng, id));
  let attempts = 0;
  const firstTimeout = scenario.script.timeoutMs(rng);
  const attempt = async (): Promise<number | "timeout"> => {
    // Like real clients, each retry waits longer than the last (a loaded machine answers slowly).
    const timeout = Math.min(5_000, firstTimeout * 2 ** Math.min(attempts, 10));
    attempts++;
    return send(body, timeout);
  };
  const first = await Promise.all(Array.from({ length: scenario.script.copies }, attempt));
  let final = first.find((status) => status !== "timeout" && status < 300 && status !== 409);
  for (let round = 0; final === undefined && round < 60; round++) {
    await new Promise((resolve) => setTimeout(resolve, between(rng, 50, 150)));
    const status = await attempt();
    if (status !== "timeout" && status !== 409 && status < 500) final = status;
  }
  if (final === undefined) throw new Error(`${id}: no final answer after ${attempts} attempts`);
  return attempts;
}

interface Row {
  scenario: string;
  requests: number;
  attempts: number;
  effects: number;
  duplicates: number;
}

async function runFamily(target: Target, scenario: HttpScenario): Promise<Row> {
  const attempts = await Promise.all(Array.from({ length: SIZE }, (_, i) => intendedRequest(target, scenario, i)));
  // Handlers still running for a timed-out attempt finish before their effects are counted.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const counts = Array.from({ length: SIZE }, (_, i) => target.effects(`${scenario.id}-${i}`));
  const effects = counts.reduce((sum, n) => sum + n, 0);
  const duplicates = counts.reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  return { scenario: scenario.id, requests: SIZE, attempts: attempts.reduce((a, b) => a + b, 0), effects, duplicates };
}

/** The middleware's targets: the same Express refunds handler with the middleware (gate over HTTP) and without it. */
function refundTarget(tool: ToolServer, path: string): Target {
  return {
    send: (id) => sender(`${tool.baseUrl}${path}`, { "idempotency-key": `key-${id}` }),
    body: (script) => script,
    effects: (id) => tool.effects.get(id) ?? 0,
  };
}

/**
 * The gateway's targets: charges through /gw/{upstream} and straight to the upstream. This upstream
 * is registered with a key header it ignores (as most APIs ignore Idempotency-Key), so the gate is
 * the only thing between a retry and a second charge; the no-gate client's key reaches it unread.
 */
function chargeTarget(world: GatewayWorld, gated: boolean): Target {
  const url = gated ? `${world.servers[0]!.baseUrl}/gw/plain/v1/charges` : `${world.upstream.url}/v1/charges`;
  // Both targets charge the one upstream: each names its charges apart.
  const ref = (id: unknown) => `${gated ? "gw" : "direct"}:${String(id)}`;
  return {
    send: (id) => sender(url, gated ? { authorization: `Bearer ${world.apiKey}`, "idempotency-key": `key-${id}` } : { "x-client-key": `key-${id}` }),
    body: ({ id, delayMs, fail }) => ({ ref: ref(id), amount: 1, ...(delayMs ? { delayMs } : {}), ...(fail ? { failOnce: true } : {}) }),
    effects: (id) => world.upstream.charges.filter((charge) => charge.ref === ref(id)).length,
  };
}

const FAMILIES = ["middleware", "gateway"] as const;

/** The HTTP-tools family: scripted unreliable clients against the middleware and the /gw gateway (gate over HTTP), each beside the same client without the gate. */
describe(`chaos, HTTP tools (${SIZE} requests per scenario, seed ${SEED}): one effect per intended request with the middleware and through the gateway`, () => {
  let world: GatewayWorld;
  let gated: ToolServer;
  let baseline: ToolServer;
  const rows: { family: string; gated: Row; baseline: Row }[] = [];

  beforeAll(async () => {
    world = await startGatewayWorld("sqlite");
    const res = await world.root.raw("POST", `/api/v1/operator/projects/${world.projectId}/upstreams`, {
      kind: "http",
      name: "plain",
      url: `${world.upstream.url}/`,
      idempotencyHeader: "x-ignored-key",
    });
    if (!res.ok) throw new Error(`upstream: ${res.status} ${await res.text()}`);
    const gate = () => createGate({ baseUrl: world.servers[0]!.baseUrl, apiKey: world.apiKey });
    gated = await startToolServer("express", gate());
    baseline = await startToolServer("express", gate());
  });

  afterAll(async () => {
    if (rows.length) {
      const table = [
          `HTTP tools chaos — size ${SIZE}, seed ${SEED}; gate: real \`next start\` over HTTP (SQLite); middleware: Express refunds handler; gateway: /gw in front of a charges API that ignores idempotency keys`,
          "",
          "| family | scenario | intended requests | HTTP attempts (gate) | effects (gate) | HTTP attempts (no gate) | effects (no gate) | duplicates (no gate) |",
          "|---|---|---:|---:|---:|---:|---:|---:|",
          ...rows.map(({ family, gated: g, baseline: b }) => `| ${family} | ${g.scenario} | ${g.requests} | ${g.attempts} | ${g.effects} | ${b.attempts} | ${b.effects} | ${b.duplicates} |`),
        ].join("\n");
      console.log(table);
      // npm run chaos prints the report after the run.
      if (process.env.IDEMGATE_CHAOS_REPORT) appendFileSync(process.env.IDEMGATE_CHAOS_REPORT, `\n${table}\n`);
    }
    await gated?.close();
    await baseline?.close();
    await world?.stop();
  });

  const cases = FAMILIES.flatMap((family) => SCENARIOS.map((scenario) => ({ family, ...scenario, scenario })));
  it.each(cases)("$family, $id: $title", async ({ family, scenario }) => {
    const [withTarget, withoutTarget] =
      family === "middleware" ? [refundTarget(gated, "/v1/refunds"), refundTarget(baseline, "/v1/direct")] : [chargeTarget(world, true), chargeTarget(world, false)];
    const withGate = await runFamily(withTarget, scenario);
    const withoutGate = await runFamily(withoutTarget, scenario);
    rows.push({ family, gated: withGate, baseline: withoutGate });
    expect(withGate.duplicates).toBe(0);
    expect(withGate.effects).toBe(SIZE);
  });
});
