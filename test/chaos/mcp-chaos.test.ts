import { mkdtempSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { allowOutbound, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/**
 * The MCP scenario family: a scripted MCP client (the official SDK) whose transport misbehaves the
 * way real ones do, once through the gateway and once straight to the same upstream (the no-gate
 * baseline). Counted against the upstream's own effects file: one effect per intended request.
 */
const SIZE = process.env.IDEMGATE_CHAOS_SIZE === "full" ? 60 : 12;

interface Tally {
  scenario: string;
  path: "gate" | "baseline";
  requests: number;
  effects: number;
  missing: number;
  duplicates: number;
}

type Call = (client: Client, orderId: string) => Promise<void>;

/** The client gives up after 150 ms (the tool takes 600) and re-issues the call as a new request, as the 2026-07-28 revision tells it to. */
const timeoutRetry: Call = async (client, orderId) => {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const result = (await client.callTool({ name: "refund_order", arguments: { orderId, slowMs: 600 } }, undefined, { timeout: attempt === 0 ? 150 : 30_000 })) as { isError?: boolean };
      if (!result.isError) return;
    } catch {
      // timed out: try again
    }
  }
  throw new Error(`${orderId} never succeeded`);
};

/** A retrying proxy sends every request twice at once. */
const duplicateSend: Call = async (client, orderId) => {
  await Promise.all([0, 1].map(() => client.callTool({ name: "refund_order", arguments: { orderId, slowMs: 100 } })));
};

/** The model re-plans after a lost answer: same order, other words, new request. */
const paraphrasedReplan: Call = async (client, orderId) => {
  await client.callTool({ name: "refund_order", arguments: { orderId, note: "customer asked for a refund" } });
  await client.callTool({ name: "refund_order", arguments: { orderId, note: "refund the order as the customer requested" } });
};

const SCENARIOS: [string, Call][] = [
  ["mcp-timeout-retry", timeoutRetry],
  ["mcp-duplicate-send", duplicateSend],
  ["mcp-paraphrased-replan", paraphrasedReplan],
];

describe(`chaos, MCP family (${SIZE} requests each): one upstream effect per request through the gateway`, () => {
  let db: TestDatabase;
  let server: TestServer;
  let upstream: RunningUpstream;
  let gated: Client;
  let direct: Client;
  const rows: Tally[] = [];

  beforeAll(async () => {
    upstream = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-chaos-")), "effects.jsonl"));
    db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url, "mcp chaos");
    server = await startServer(db.url, OPERATOR_ENV);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    await allowOutbound(root, project.projectId, "127.0.0.1");
    await registerMcpUpstream(root, project.projectId, "shop", upstream.url);
    // Refunds are per order, however the model words them.
    const policy = await root.raw("PUT", `/api/v1/admin/projects/${project.projectId}/policies/shop__refund_order`, { policy: { scopeFrom: ["/orderId"] }, reason: "one refund per order" });
    expect(policy.status).toBe(200);
    gated = await gatewayClient(server.baseUrl, "shop", project.apiKey);
    direct = new SdkClient({ name: "chaos-baseline", version: "1.0.0" });
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
  });

  afterAll(async () => {
    console.log(
      ["| scenario | path | requests | effects | missing | duplicates |", "|---|---|---|---|---|---|", ...rows.map((r) => `| ${r.scenario} | ${r.path} | ${r.requests} | ${r.effects} | ${r.missing} | ${r.duplicates} |`)].join("\n"),
    );
    await gated?.close();
    await direct?.close();
    await server?.stop();
    await db?.drop();
    await upstream?.stop();
  });

  const tally = (scenario: string, via: Tally["path"], orders: string[]): Tally => {
    const counts = new Map(orders.map((order) => [order, 0]));
    for (const effect of upstream.effects()) {
      const order = String(effect.args.orderId);
      if (counts.has(order)) counts.set(order, counts.get(order)! + 1);
    }
    const values = [...counts.values()];
    return { scenario, path: via, requests: orders.length, effects: values.reduce((a, b) => a + b, 0), missing: values.filter((n) => n === 0).length, duplicates: values.reduce((sum, n) => sum + Math.max(0, n - 1), 0) };
  };

  it.each(SCENARIOS)("%s", async (scenario, call) => {
    for (const [via, client] of [["gate", gated], ["baseline", direct]] as const) {
      const orders = Array.from({ length: SIZE }, (_, i) => `${scenario}-${via}-${i}`);
      for (let i = 0; i < orders.length; i += 4) await Promise.all(orders.slice(i, i + 4).map((order) => call(client, order)));
      rows.push(tally(scenario, via, orders));
    }
    const [gate, baseline] = rows.slice(-2) as [Tally, Tally];
    expect({ missing: gate.missing, duplicates: gate.duplicates, effects: gate.effects }).toEqual({ missing: 0, duplicates: 0, effects: SIZE });
    // The faults bite: the same client straight to the upstream does duplicate side effects.
    expect(baseline.duplicates).toBeGreaterThan(0);
  });
});
