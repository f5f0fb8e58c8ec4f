import path from "node:path";
import { mkdtempSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PROVIDERS } from "../helpers/databases";
import { decisionOf, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { sql } from "../helpers/sql";
import { type TwoProjects, startTwoProjects } from "../helpers/two-projects";

type Result = { content: unknown; isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };

describe.each(PROVIDERS)("%s: MCP gateway over Streamable HTTP", (provider) => {
  let world: TwoProjects;
  let upstream: RunningUpstream;
  let client: Client;
  const effectsFor = (tool: string, orderId?: string) =>
    upstream.effects().filter((effect) => effect.tool === tool && (orderId === undefined || effect.args.orderId === orderId));

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(inject("tmpRoot"), "mcp-"));
    upstream = await startUpstream(path.join(dir, "effects.jsonl"));
    world = await startTwoProjects(provider);
    await registerMcpUpstream(world.root, world.projectA, "shop", upstream.url);
    client = await gatewayClient(world.server.baseUrl, "shop", world.agentA.apiKey);
  });
  afterAll(async () => {
    await client?.close();
    await world?.stop();
    await upstream?.stop();
  });

  it("lists the upstream's tools with their annotations, and refuses a bad key or an unknown upstream", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["refund_order", "get_order", "delete_customer"]));
    expect(tools.find((tool) => tool.name === "get_order")!.annotations).toMatchObject({ readOnlyHint: true });
    await expect(gatewayClient(world.server.baseUrl, "shop", "ig_not_a_key")).rejects.toThrow();
    await expect(gatewayClient(world.server.baseUrl, "nowhere", world.agentA.apiKey)).rejects.toThrow();
    await expect(gatewayClient(world.server.baseUrl, "shop", world.agentB.apiKey)).rejects.toThrow();
  });

  it("a duplicate call replays the stored result unchanged: one refund", async () => {
    const args = { orderId: "o-dup", amount: 42 };
    const first = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    const second = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    expect(decisionOf(first)).toBe("execute");
    expect(decisionOf(second)).toBe("replay");
    expect(second.content).toEqual(first.content);
    expect(second.structuredContent).toEqual({ refundId: "re_o-dup", amount: 42 });
    expect(second._meta?.["idemgate/callId"]).toBe(first._meta?.["idemgate/callId"]);
    expect(effectsFor("refund_order", "o-dup")).toHaveLength(1);
    expect(effectsFor("refund_order", "o-dup")[0]!.idempotencyKey).toBe(first._meta?.["idemgate/key"]);
  });

  it("20 concurrent identical calls: one execution, 19 latched replays", async () => {
    // Slow enough that every duplicate arrives while the first runs: they latch onto it (a resend
    // after it finished would be a step of its own, and three in a row trip the loop detector).
    const args = { orderId: "o-burst", amount: 7, slowMs: 2_000 };
    const results = (await Promise.all(Array.from({ length: 20 }, () => client.callTool({ name: "refund_order", arguments: args })))) as Result[];
    expect(effectsFor("refund_order", "o-burst")).toHaveLength(1);
    expect(results.filter((result) => decisionOf(result) === "execute")).toHaveLength(1);
    expect(results.filter((result) => decisionOf(result) === "replay"), JSON.stringify(results.map((r) => [decisionOf(r), r.content]))).toHaveLength(19);
    for (const result of results) expect(result.isError ?? false).toBe(false);
  });

  it("a client-side timeout, then the same call again: one refund, and the retry gets its result", async () => {
    const args = { orderId: "o-timeout", amount: 3, slowMs: 1_500 };
    await expect(client.callTool({ name: "refund_order", arguments: args }, undefined, { timeout: 200 })).rejects.toThrow();
    const retried = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    expect(retried.isError ?? false).toBe(false);
    expect(decisionOf(retried)).toBe("replay");
    expect(effectsFor("refund_order", "o-timeout")).toHaveLength(1);
  });

  it("a paraphrased re-plan under the same scope replays; the read-only tool is never deduped", async () => {
    const meta = { "idemgate/scope": "order:o-plan" };
    const first = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-plan", amount: 10, note: "customer asked" }, _meta: meta })) as Result;
    const replanned = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-plan", amount: 10.0, note: "refund as requested by the customer" }, _meta: meta })) as Result;
    expect([decisionOf(first), decisionOf(replanned)]).toEqual(["execute", "replay"]);
    expect(effectsFor("refund_order", "o-plan")).toHaveLength(1);
  });

  it("an isError result is a recorded failure that replays as one; a malformed reply is never a success", async () => {
    const declined = (await client.callTool({ name: "decline", arguments: { orderId: "o-x" } })) as Result;
    expect(declined.isError).toBe(true);
    expect(decisionOf(declined)).toBe("execute");
    const again = (await client.callTool({ name: "decline", arguments: { orderId: "o-x" } })) as Result;
    expect(again.isError).toBe(true);
    expect(decisionOf(again)).toBe("replay");
    expect(JSON.stringify(again.content)).toContain("card declined");
    expect(effectsFor("decline")).toHaveLength(1);

    const garbled = (await client.callTool({ name: "garbled", arguments: {} })) as Result;
    expect(garbled.isError).toBe(true);
    expect(JSON.stringify(garbled.content)).toMatch(/not a valid tool result/);
    const states = await sql<{ state: string }>(world.databaseUrl, "SELECT state FROM call_records WHERE project_id = $1 AND tool = $2", [world.projectA, "shop__garbled"]);
    expect(states.map((row) => row.state)).toEqual(["failed"]);
  });

  it("upstream down: a clear retryable isError, nothing recorded as executed, and the next call runs once it is back", async () => {
    const down = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-down-")), "effects.jsonl"));
    await registerMcpUpstream(world.root, world.projectA, "flaky", down.url);
    await down.stop();
    const flaky = await gatewayClient(world.server.baseUrl, "flaky", world.agentA.apiKey);
    try {
      const result = (await flaky.callTool({ name: "refund_order", arguments: { orderId: "o-down" } })) as Result;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/unreachable/);
      expect(JSON.stringify(result.content)).toMatch(/retryable/);
      expect(result._meta?.["idemgate/retryable"]).toBe(true);
      const rows = await sql<{ state: string }>(world.databaseUrl, "SELECT state FROM call_records WHERE project_id = $1 AND tool = $2", [world.projectA, "flaky__refund_order"]);
      expect(rows.map((row) => row.state)).not.toContain("succeeded");
    } finally {
      await flaky.close();
    }
  });
});
