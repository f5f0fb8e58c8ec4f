import path from "node:path";
import { mkdtempSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PROVIDERS } from "../helpers/databases";
import { type Result, allowOutbound, decisionOf, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { type TwoProjects, startTwoProjects } from "../helpers/two-projects";

/**
 * Issue #35 §2 on the MCP transport: a tools/call's arguments are fingerprinted with their numbers
 * as written. A JS client cannot send 9007199254740993 (a double rounds it), so the client's fetch
 * writes `"@@<digits>@@"` placeholders out as the bare number, as a client in another language would.
 */
const exactFetch: typeof fetch = (input, init) => {
  const body = typeof init?.body === "string" ? init.body.replace(/"@@(-?[0-9.eE+-]+)@@"/g, "$1") : init?.body;
  return fetch(input, { ...init, body });
};

describe.each(PROVIDERS)("%s: MCP gateway: numbers a double cannot hold are compared as written", (provider) => {
  let world: TwoProjects;
  let upstream: RunningUpstream;
  let client: Client;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(inject("tmpRoot"), "mcp-exact-"));
    upstream = await startUpstream(path.join(dir, "effects.jsonl"));
    world = await startTwoProjects(provider);
    await allowOutbound(world.root, world.projectA, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectA, "shop", upstream.url);
    client = new Client({ name: "exact-numbers", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${world.server.baseUrl}/mcp/shop`), { requestInit: { headers: { authorization: `Bearer ${world.agentA.apiKey}` } }, fetch: exactFetch }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await world?.stop();
    await upstream?.stop();
  });

  const refund = (orderId: string, account: string, amount: string) =>
    client.callTool({ name: "refund_order", arguments: { orderId, account: `@@${account}@@`, amount: `@@${amount}@@` } }) as Promise<Result>;

  it("two accounts past 2^53 are two refunds, not a replay; the same account written another way replays", async () => {
    const first = await refund("o-exact", "9007199254740993", "10");
    expect(decisionOf(first)).toBe("execute");
    const other = await refund("o-exact", "9007199254740992", "10");
    expect(decisionOf(other)).toBe("execute");
    const same = await refund("o-exact", "9007199254740993", "10.0");
    expect(decisionOf(same)).toBe("replay");
    expect(upstream.effects().filter((effect) => effect.tool === "refund_order" && effect.args.orderId === "o-exact")).toHaveLength(2);
  });

  it("a decimal past a double's precision is another payload", async () => {
    expect(decisionOf(await refund("o-precise", "1", "0.1"))).toBe("execute");
    expect(decisionOf(await refund("o-precise", "1", "0.10000000000000001"))).toBe("execute");
    expect(upstream.effects().filter((effect) => effect.tool === "refund_order" && effect.args.orderId === "o-precise")).toHaveLength(2);
  });
});
