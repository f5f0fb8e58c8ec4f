import { existsSync, mkdtempSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { UpstreamListSchema, UpstreamSchema } from "../../lib/contract/upstreams";
import { PROVIDERS } from "../helpers/databases";
import { type Result, decisionOf, gatewayClient } from "../helpers/mcp-clients";
import { readEffects } from "../helpers/mcp-upstream";
import { sql } from "../helpers/sql";
import { type TwoProjects, startTwoProjects } from "../helpers/two-projects";

/**
 * Issue #34 §3: registering a stdio upstream spawned whatever command a project admin gave, as the
 * server's user. Now the server's owner lists the commands (IDEMGATE_STDIO_COMMANDS) and a project
 * admin picks one by name; the gateway spawns only what the configuration says under that name.
 */
describe.each(PROVIDERS)("%s: stdio commands come from the server's configuration", (provider) => {
  let world: TwoProjects;
  let dir: string;
  let effectsFile: string;
  const clients: Client[] = [];
  const marker = () => path.join(dir, "pwned");
  const upstreams = () => world.root.p(world.projectA, "/upstreams");
  const list = async () => (await world.root.call(UpstreamListSchema, "GET", upstreams())).upstreams;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(inject("tmpRoot"), "stdio-commands-"));
    effectsFile = path.join(dir, "effects.jsonl");
    const helper = path.resolve(import.meta.dirname, "../helpers/mcp-stdio-upstream.ts");
    world = await startTwoProjects(provider, { IDEMGATE_STDIO_COMMANDS: JSON.stringify({ "test-shop": { command: process.execPath, args: ["--import", "tsx", helper, effectsFile] } }) });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await world?.stop();
  });

  it("a command line, a path, an unlisted name or arguments are refused at registration (400 with the issue), and nothing is stored", async () => {
    const before = await list();
    for (const body of [
      { command: "sh", args: [] },
      { command: process.execPath },
      { command: "node", args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker())}, "x")`] },
      { command: "test-shop", args: ["--eval", "1"] },
      { command: "npx -y @acme/mcp-server" },
    ]) {
      const refused = await world.root.expectError("POST", upstreams(), { kind: "mcp", transport: "stdio", name: "evil", ...body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.issues?.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    const unlisted = await world.root.expectError("POST", upstreams(), { kind: "mcp", transport: "stdio", name: "evil", command: "sh" });
    expect(unlisted.body.error.message).toMatch(/not a stdio command this server lists; pick one of: test-shop/);
    expect(await list()).toEqual(before);
  });

  it("the configured names are listed for the dashboard; a changed command must be listed too", async () => {
    const listed = await world.root.call(UpstreamListSchema, "GET", upstreams());
    expect(listed.stdioCommands).toEqual(["test-shop"]);
    const created = await world.root.call(UpstreamSchema, "POST", upstreams(), { kind: "mcp", transport: "stdio", name: "picked", command: "test-shop" });
    expect(created).toMatchObject({ command: "test-shop", args: [] });
    for (const change of [{ command: "sh" }, { args: ["-e", "1"] }, { command: "test-shop", args: ["x"] }]) {
      const refused = await world.root.expectError("PATCH", `${upstreams()}/${created.id}`, change);
      expect(refused.status, JSON.stringify(change)).toBe(400);
    }
    expect((await list()).find((u) => u.id === created.id)).toMatchObject({ command: "test-shop", args: [], version: 1 });
  });

  it("the picked command runs as configured: one effect, the duplicate replays", async () => {
    await world.root.call(UpstreamSchema, "POST", upstreams(), { kind: "mcp", transport: "stdio", name: "local", command: "test-shop" });
    const client = await gatewayClient(world.server.baseUrl, "local", world.agentA.apiKey);
    clients.push(client);
    const args = { orderId: `cfg-${provider}`, amount: 3 };
    const first = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    const second = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    expect([decisionOf(first), decisionOf(second)]).toEqual(["execute", "replay"]);
    expect(readEffects(effectsFile).filter((effect) => effect.args.orderId === args.orderId)).toHaveLength(1);
  });

  it("a row that names a command line (written before this rule, or by hand) is never spawned", async () => {
    const row = await world.root.call(UpstreamSchema, "POST", upstreams(), { kind: "mcp", transport: "stdio", name: "legacy", command: "test-shop" });
    const script = `require("fs").writeFileSync(${JSON.stringify(marker())}, "x")`;
    await sql(world.databaseUrl, "UPDATE upstreams SET command = $1, args = $2 WHERE id = $3", [process.execPath, JSON.stringify(["-e", script]), row.id]);
    const refused = await gatewayClient(world.server.baseUrl, "legacy", world.agentA.apiKey)
      .then(async (client) => {
        clients.push(client);
        return (await client.callTool({ name: "refund_order", arguments: { orderId: "legacy-1" } })) as Result;
      })
      .catch((error: unknown) => error);
    // Whichever way the gateway says it (a failed connect or an isError result), nothing ran.
    if (!(refused instanceof Error)) expect((refused as Result).isError).toBe(true);
    expect(existsSync(marker())).toBe(false);
  });
});
