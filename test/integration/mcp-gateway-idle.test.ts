import path from "node:path";
import { mkdtempSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PolicyChangeResponseSchema } from "../../lib/contract/admin-policies";
import { PROVIDERS } from "../helpers/databases";
import { type Result, allowOutbound, decisionOf, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { waitFor } from "../helpers/storm-scenario";
import { type TwoProjects, twoProjectsOnSharedServer } from "../helpers/two-projects";

const BURST = 30;

/**
 * Issue #34 §1: an upstream that closes idle pooled connections (a 2 s keep-alive, as gunicorn's
 * default) made the next burst answer "sent but its outcome is unknown (Connection closed)" for
 * most calls, which then stayed stuck until their lease lapsed. A request that was never sent is
 * sent again on a fresh connection, and one call's broken connection never fails another's.
 */
describe.each(PROVIDERS)("%s: MCP gateway after idle connections", (provider) => {
  let world: TwoProjects;
  let upstream: RunningUpstream;
  let dropping: RunningUpstream;
  let client: Client;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(inject("tmpRoot"), "mcp-idle-"));
    upstream = await startUpstream(path.join(dir, "effects.jsonl"));
    world = await twoProjectsOnSharedServer(provider);
    await allowOutbound(world.root, world.projectA, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectA, "shop", upstream.url);
    dropping = await startUpstream(path.join(dir, "effects-dropping.jsonl"), 0, { dropReusedAfterIdleMs: 2_000 });
    await registerMcpUpstream(world.root, world.projectA, "racy", dropping.url);
    client = await gatewayClient(world.server.baseUrl, "shop", world.agentA.apiKey);
  });
  afterAll(async () => {
    await client?.close();
    await world?.stop();
    await upstream?.stop();
    await dropping?.stop();
  });

  it("bursts after an idle longer than the upstream's 2 s keep-alive: no request crosses its idle close (which would reset it unread, an unknown outcome), one effect each", async () => {
    const racy = await gatewayClient(world.server.baseUrl, "racy", world.agentA.apiKey);
    try {
      const call = (round: string) =>
        Promise.all(Array.from({ length: BURST }, (_, i) => racy.callTool({ name: "refund_order", arguments: { orderId: `${round}-${i}` } }) as Promise<Result>));
      for (const round of ["racy-warm", "racy-after-idle"]) {
        const results = await call(round);
        expect(results.filter((result) => result._meta?.["idemgate/outcome"] === "unknown").map((result) => JSON.stringify(result.content)), round).toEqual([]);
        expect(results.filter((result) => result.isError).map((result) => JSON.stringify(result.content)), round).toEqual([]);
        for (let i = 0; i < BURST; i++) expect(dropping.effects().filter((effect) => effect.args.orderId === `${round}-${i}`), `${round}-${i}`).toHaveLength(1);
        // Each result says what share of the call was the gateway's own (the MCP side of Server-Timing).
        for (const result of results) {
          const timing = result._meta?.["idemgate/timing"] as { totalMs: number; upstreamMs: number; gatewayMs: number };
          expect(timing.upstreamMs).toBeGreaterThan(0);
          expect(timing.gatewayMs).toBeCloseTo(timing.totalMs - timing.upstreamMs, 0);
        }
        // The pooled connections sit idle past the upstream's keep-alive: a client that reused them now
        // would have its requests dropped unread (the upstream models the race deterministically).
        await new Promise((resolve) => setTimeout(resolve, 2_500));
      }
      // A replay never reaches the upstream: all of it is the gateway's.
      const replayed = (await racy.callTool({ name: "refund_order", arguments: { orderId: "racy-warm-0" } })) as Result;
      expect(decisionOf(replayed)).toBe("replay");
      expect(replayed._meta?.["idemgate/timing"]).toMatchObject({ upstreamMs: 0 });
    } finally {
      await racy.close();
    }
  });

  it("one call's broken connection fails no other call in flight on the same upstream", async () => {
    const slow = Array.from({ length: BURST - 1 }, (_, i) => client.callTool({ name: "refund_order", arguments: { orderId: `inflight-${i}`, slowMs: 1_500 } }) as Promise<Result>);
    // Once the slow calls are on the wire, one call whose connection the upstream cuts.
    await waitFor(async () => (await upstream.connections()) >= 10, 30_000, "the slow calls to be in flight");
    const cut = (await client.callTool({ name: "sever", arguments: { orderId: "inflight-cut" } })) as Result;
    expect(cut._meta?.["idemgate/outcome"]).toBe("unknown");
    const results = await Promise.all(slow);
    expect(results.filter((result) => result.isError).map((result) => JSON.stringify(result.content))).toEqual([]);
    expect(results.map(decisionOf)).toEqual(Array.from({ length: BURST - 1 }, () => "execute"));
    for (let i = 0; i < BURST - 1; i++) expect(upstream.effects().filter((effect) => effect.args.orderId === `inflight-${i}`)).toHaveLength(1);
  });

  it("an upstream that cuts its stream after the effect: the client hears 'unknown' long before its own timeout, and the retry never runs it again", async () => {
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__sever`, {
      policy: { leaseSeconds: 2 },
      reason: "short leases, so the test sees the lapse",
    });
    const args = { orderId: "cut-1" };
    // A client that waits 15 s at most (as several do): the gateway must answer within it.
    const started = Date.now();
    const lost = (await client.callTool({ name: "sever", arguments: args }, undefined, { timeout: 15_000 })) as Result;
    console.log(`[mcp idle] a cut stream was answered after ${Date.now() - started} ms`);
    expect(lost.isError).toBe(true);
    expect(lost._meta?.["idemgate/outcome"]).toBe("unknown");
    const effects = () => upstream.effects().filter((effect) => effect.tool === "sever" && effect.args.orderId === "cut-1");
    expect(effects()).toHaveLength(1);
    await waitFor(
      async () => {
        const again = (await client.callTool({ name: "sever", arguments: args }, undefined, { timeout: 15_000 })) as Result;
        expect(["in_progress", "verify"]).toContain(decisionOf(again));
        return decisionOf(again) === "verify";
      },
      60_000,
      "a retry to be answered verify",
    );
    expect(effects()).toHaveLength(1);
  });

  it("an upstream that ends its response stream cleanly after the effect, without an answer: 'unknown' before a 20 s client gives up, though the gateway's own upstream timeout is 60 s", async () => {
    const args = { orderId: "cut-clean", gracefully: true };
    // No declared timeout: only hearing the stream end can answer before the client's 20 s budget.
    const lost = (await client.callTool({ name: "sever", arguments: args }, undefined, { timeout: 20_000 })) as Result;
    expect(lost.isError).toBe(true);
    expect(lost._meta?.["idemgate/outcome"]).toBe("unknown");
    expect(JSON.stringify(lost.content)).toMatch(/stream ended without an answer/);
    expect(upstream.effects().filter((effect) => effect.tool === "sever" && effect.args.orderId === "cut-clean")).toHaveLength(1);
  });

  it("a slow upstream and a client that declares a 6 s wait (_meta idemgate/timeoutMs): 'unknown' before the client gives up, not at the gateway's 60 s", async () => {
    const args = { orderId: "slow-declared", slowMs: 45_000 };
    const lost = (await client.callTool({ name: "refund_order", arguments: args, _meta: { "idemgate/timeoutMs": 6_000 } }, undefined, { timeout: 20_000 })) as Result;
    expect(lost.isError).toBe(true);
    expect(lost._meta?.["idemgate/outcome"]).toBe("unknown");
  });
});
