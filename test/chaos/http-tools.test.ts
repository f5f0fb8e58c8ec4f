import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGate } from "../../lib/sdk";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { type ToolServer, startToolServer } from "../helpers/http-tool-servers";
import { type TestServer, startServer } from "../helpers/server";
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

async function send(url: string, key: string, body: Record<string, unknown>, timeoutMs: number): Promise<number | "timeout"> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return "timeout";
  }
}

/** Runs one intended refund to a final answer; resolves with the number of HTTP attempts. */
async function intendedRefund(url: string, scenario: HttpScenario, index: number): Promise<number> {
  const rng = rngFor(SEED, scenario.id, index);
  const id = `${scenario.id}-${index}`;
  const key = `key-${id}`;
  const body = scenario.script.body(rng, id);
  let attempts = 0;
  const firstTimeout = scenario.script.timeoutMs(rng);
  const attempt = async (): Promise<number | "timeout"> => {
    // Like real clients, each retry waits longer than the last (a loaded machine answers slowly).
    const timeout = Math.min(5_000, firstTimeout * 2 ** Math.min(attempts, 10));
    attempts++;
    return send(url, key, body, timeout);
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

async function runFamily(tool: ToolServer, path: string, scenario: HttpScenario): Promise<Row> {
  const attempts = await Promise.all(Array.from({ length: SIZE }, (_, i) => intendedRefund(`${tool.baseUrl}${path}`, scenario, i)));
  // Handlers still running for a timed-out attempt finish before their effects are counted.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const ids = Array.from({ length: SIZE }, (_, i) => `${scenario.id}-${i}`);
  const effects = ids.reduce((sum, id) => sum + (tool.effects.get(id) ?? 0), 0);
  const duplicates = ids.reduce((sum, id) => sum + Math.max(0, (tool.effects.get(id) ?? 0) - 1), 0);
  return { scenario: scenario.id, requests: SIZE, attempts: attempts.reduce((a, b) => a + b, 0), effects, duplicates };
}

/** The HTTP-tools family: scripted unreliable clients against the middleware (gate over HTTP) and against the same handler without it. */
describe(`chaos, HTTP tools (${SIZE} requests per scenario, seed ${SEED}): one refund per intended request with the middleware`, () => {
  let db: TestDatabase;
  let server: TestServer;
  let gated: ToolServer;
  let baseline: ToolServer;
  const rows: { gated: Row; baseline: Row }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url, "chaos http tools");
    server = await startServer(db.url);
    gated = await startToolServer("express", createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey }));
    baseline = await startToolServer("express", createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey }));
  });

  afterAll(async () => {
    if (rows.length) {
      console.log(
        [
          "| scenario | intended requests | HTTP attempts (gate) | refunds (gate) | HTTP attempts (no gate) | refunds (no gate) | duplicates (no gate) |",
          "|---|---|---|---|---|---|---|",
          ...rows.map(({ gated: g, baseline: b }) => `| ${g.scenario} | ${g.requests} | ${g.attempts} | ${g.effects} | ${b.attempts} | ${b.effects} | ${b.duplicates} |`),
        ].join("\n"),
      );
    }
    await gated?.close();
    await baseline?.close();
    await server?.stop();
    await db?.drop();
  });

  it.each(SCENARIOS)("$id: $title", async (scenario) => {
    const withGate = await runFamily(gated, "/v1/refunds", scenario);
    const withoutGate = await runFamily(baseline, "/v1/direct", scenario);
    rows.push({ gated: withGate, baseline: withoutGate });
    expect(withGate.duplicates).toBe(0);
    expect(withGate.effects).toBe(SIZE);
  });
});
