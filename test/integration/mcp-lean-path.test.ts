import path from "node:path";
import { mkdtempSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PROVIDERS } from "../helpers/databases";
import { type Result, allowOutbound, decisionOf, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { waitFor } from "../helpers/storm-scenario";
import { type TwoProjects, twoProjectsOnSharedServer } from "../helpers/two-projects";

/**
 * scripts/serve.mjs serves `/mcp/{name}` on the lean path (lib/http/mcp-lean.ts) and leaves every
 * other spelling to Next.js: `/mcp/sho%70` is Next.js's route for the same upstream (it decodes the
 * segment). Both run one route (with-mcp-route.ts), so a client must not be able to tell them apart.
 */
describe.each(PROVIDERS)("%s: the MCP gateway on the lean path answers as Next.js's route does", (provider) => {
  let world: TwoProjects;
  let upstream: RunningUpstream;
  const lean = (name = "shop") => `${world.server.baseUrl}/mcp/${name}`;
  const viaNext = (name = "shop") => `${world.server.baseUrl}/mcp/${name.slice(0, -1)}%${name.charCodeAt(name.length - 1).toString(16)}`;

  beforeAll(async () => {
    upstream = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-lean-")), "effects.jsonl"));
    world = await twoProjectsOnSharedServer(provider);
    await allowOutbound(world.root, world.projectA, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectA, "shop", upstream.url);
  });
  afterAll(async () => {
    await world?.stop();
    await upstream?.stop();
  });

  const mcpHeaders = () => ({ authorization: `Bearer ${world.agentA.apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" });
  const answer = async (url: string, init: RequestInit) => {
    const res = await fetch(url, init);
    const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== "date"));
    return { status: res.status, headers, body: await res.text() };
  };
  const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });

  it("the same status, headers and body on both paths: a listing, no key, an unknown upstream, a body that is not JSON, a web page's Origin, GET and DELETE without a session", async () => {
    // The first listing seeds the tools' policies (a write, which a busy shared server may refuse with a 503): settled first.
    await waitFor(async () => (await fetch(lean(), { method: "POST", headers: mcpHeaders(), body: toolsList })).status === 200, 30_000, "a first listing");
    const cases: [string, string, RequestInit][] = [
      ["a listing", "shop", { method: "POST", headers: mcpHeaders(), body: toolsList }],
      ["no key", "shop", { method: "POST", headers: { ...mcpHeaders(), authorization: "" }, body: toolsList }],
      ["an unknown upstream", "nope", { method: "POST", headers: mcpHeaders(), body: toolsList }],
      ["a body that is not JSON", "shop", { method: "POST", headers: mcpHeaders(), body: "{" }],
      ["a web page's Origin", "shop", { method: "POST", headers: { ...mcpHeaders(), origin: "https://evil.example" }, body: toolsList }],
      ["GET without a session", "shop", { method: "GET", headers: { ...mcpHeaders(), accept: "text/event-stream" } }],
      ["DELETE without a session", "shop", { method: "DELETE", headers: mcpHeaders() }],
    ];
    for (const [label, name, init] of cases) {
      const [fromLean, fromNext] = [await answer(lean(name), init), await answer(viaNext(name), init)];
      expect(fromLean, label).toEqual(fromNext);
    }
    const listed = await answer(lean(), { method: "POST", headers: mcpHeaders(), body: toolsList });
    expect(listed.headers["content-type"]).toBe("text/event-stream");
    expect(listed.body).toContain('"refund_order"');
    // The app's security headers are on the lean path's answers too.
    expect(listed.headers["x-frame-options"]).toBe("DENY");
  });

  it("one gate behind both: a call through the lean path replays through Next.js's, one effect, each with the gateway's timing", async () => {
    const clients: Client[] = [await gatewayClient(world.server.baseUrl, "shop", world.agentA.apiKey)];
    try {
      clients.push(await gatewayClient(world.server.baseUrl, "sho%70", world.agentA.apiKey));
      const call = { name: "refund_order", arguments: { orderId: `lean-${provider}`, amount: 3 }, _meta: { "idemgate/runId": `lean-run-${provider}` } };
      const settled = (client: Client, decision: string) =>
        waitFor(async () => {
          const result = (await client.callTool(call)) as Result;
          return decisionOf(result) === decision ? result : null;
        }, 30_000, `a ${decision}`);
      const first = await settled(clients[0]!, "execute");
      const again = await settled(clients[1]!, "replay");
      expect(again.content).toEqual(first.content);
      expect(upstream.effects().filter((effect) => effect.args.orderId === `lean-${provider}`)).toHaveLength(1);
      for (const result of [first, again]) {
        const timing = result._meta?.["idemgate/timing"] as { totalMs: number; upstreamMs: number; gatewayMs: number };
        expect(timing.totalMs).toBeGreaterThan(0);
        expect(timing.gatewayMs).toBeCloseTo(timing.totalMs - timing.upstreamMs, 0);
      }
      expect((first._meta?.["idemgate/timing"] as { upstreamMs: number }).upstreamMs).toBeGreaterThan(0);
      expect((again._meta?.["idemgate/timing"] as { upstreamMs: number }).upstreamMs).toBe(0);
    } finally {
      for (const client of clients) await client.close();
    }
  });
});
