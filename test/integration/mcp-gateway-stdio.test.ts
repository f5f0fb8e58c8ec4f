import path from "node:path";
import { mkdtempSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PolicyChangeResponseSchema } from "../../lib/contract/admin-policies";
import { UpstreamSchema } from "../../lib/contract/upstreams";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Result, allowOutbound, decisionOf, gatewayClient, registerMcpUpstream, restartUntilSettled, retryUntilSettled, spawnAgent, withoutLoopDetection } from "../helpers/mcp-clients";
import { type RunningUpstream, readEffects, startUpstream } from "../helpers/mcp-upstream";
import { sql } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";
import { type TwoProjects, startTwoProjects, twoProjectsOnSharedServer } from "../helpers/two-projects";

describe("MCP gateway over stdio (idemgate mcp --upstream, speaking the 2025-11-25 session revision to the gate, so cancels pass)", () => {
  let world: TwoProjects;
  let upstream: RunningUpstream;
  let client: SdkClient;
  const effectsFor = (orderId: string) => upstream.effects().filter((effect) => effect.args.orderId === orderId);
  const cli = path.resolve(import.meta.dirname, "../../scripts/idemgate-cli.mjs");

  beforeAll(async () => {
    upstream = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-stdio-")), "effects.jsonl"));
    world = await twoProjectsOnSharedServer("sqlite");
    await allowOutbound(world.root, world.projectA, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectA, "shop", upstream.url);
    client = new SdkClient({ name: "stdio-test-client", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cli, "mcp", "--upstream", "shop"],
        env: { ...process.env, IDEMGATE_URL: world.server.baseUrl, IDEMGATE_API_KEY: world.agentA.apiKey } as Record<string, string>,
        stderr: "inherit",
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await world?.stop();
    await upstream?.stop();
  });

  it("lists tools with annotations; a duplicate replays; 20 concurrent identical calls refund once", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === "get_order")!.annotations).toMatchObject({ readOnlyHint: true });
    const first = (await client.callTool({ name: "refund_order", arguments: { orderId: "s-dup", amount: 1 } })) as Result;
    const second = (await client.callTool({ name: "refund_order", arguments: { orderId: "s-dup", amount: 1 } })) as Result;
    expect([decisionOf(first), decisionOf(second)]).toEqual(["execute", "replay"]);
    expect(second.content).toEqual(first.content);
    // As above: with the loop detector off, a duplicate that arrives after the first finished replays too.
    const burst = await withoutLoopDetection(world, async () => (await Promise.all(Array.from({ length: 20 }, () => client.callTool({ name: "refund_order", arguments: { orderId: "s-burst", slowMs: 2_000 } })))) as Result[]);
    expect(burst.filter((result) => decisionOf(result) === "execute")).toHaveLength(1);
    expect(burst.filter((result) => decisionOf(result) === "replay")).toHaveLength(19);
    expect(effectsFor("s-dup")).toHaveLength(1);
    expect(effectsFor("s-burst")).toHaveLength(1);
  });

  it("a cancel sent through the stdio entrypoint reaches the upstream, as over HTTP; the retry never ships twice", async () => {
    const cancels = () => upstream.effects().filter((effect) => effect.tool === "notifications/cancelled").length;
    const before = cancels();
    const args = { orderId: "s-cancel", slowMs: 2_000 };
    const giveUp = new AbortController();
    const first = client.callTool({ name: "ship_order", arguments: args }, undefined, { signal: giveUp.signal }).catch((error: unknown) => error);
    await waitFor(async () => effectsFor("s-cancel").some((effect) => effect.tool === "ship_order:started"), 60_000, "the upstream to start the call");
    giveUp.abort(new Error("timed out"));
    expect(await first).toBeInstanceOf(Error);
    await waitFor(async () => cancels() > before, 30_000, "the cancel to reach the upstream");
    await waitFor(async () => effectsFor("s-cancel").some((effect) => effect.tool === "ship_order"), 30_000, "the upstream to finish");
    expect(effectsFor("s-cancel").filter((effect) => effect.tool === "ship_order")).toHaveLength(1);
  });

  it("passes a client-sent idempotencyKey on to the gate, which records it as the call's toolCallId (as over HTTP)", async () => {
    const result = (await client.callTool({ name: "refund_order", arguments: { orderId: "s-idem", amount: 2 }, idempotencyKey: "idem-stdio-1" } as never)) as Result;
    expect(decisionOf(result)).toBe("execute");
    const rows = await sql<{ tool_call_id: string | null }>(world.databaseUrl, "SELECT tool_call_id FROM call_records WHERE project_id = $1 AND args LIKE $2", [world.projectA, "%s-idem%"]);
    expect(rows).toEqual([{ tool_call_id: "idem-stdio-1" }]);
    expect(effectsFor("s-idem")).toHaveLength(1);
  });

  it("the client SIGKILLed mid-call and restarted on the same run (IDEMGATE_RUN_ID): one refund, the restart gets it", async () => {
    const common = { transport: "stdio", url: world.server.baseUrl, upstream: "shop", key: world.agentA.apiKey, run: "run-stdio-crash", args: JSON.stringify({ orderId: "s-kill", slowMs: 3_000 }) };
    const first = spawnAgent(common);
    await first.waitFor("calling");
    await waitFor(async () => (await sql(world.databaseUrl, "SELECT id FROM call_records WHERE project_id = $1 AND run_id = $2", [world.projectA, "run-stdio-crash"])).length > 0, 60_000, "the gate to claim the call");
    first.child.kill("SIGKILL");
    const result = await restartUntilSettled(() => spawnAgent(common));
    expect(decisionOf(result)).toBe("replay");
    expect(effectsFor("s-kill")).toHaveLength(1);
  });
});

describe("MCP gateway in front of a stdio upstream (a command the gate spawns)", () => {
  let world: TwoProjects;
  let client: Client;
  let effectsFile: string;
  const effectsFor = (orderId: string) => readEffects(effectsFile).filter((effect) => effect.args.orderId === orderId);

  beforeAll(async () => {
    effectsFile = path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-stdio-up-")), "effects.jsonl");
    const helper = path.resolve(import.meta.dirname, "../helpers/mcp-stdio-upstream.ts");
    // The server's owner lists the command; the project's admin picks it by name.
    const commands = { "test-shop": { command: process.execPath, args: ["--import", "tsx", helper, effectsFile] } };
    world = await startTwoProjects("sqlite", { IDEMGATE_STDIO_COMMANDS: JSON.stringify(commands) });
    await world.root.call(UpstreamSchema, "POST", world.root.p(world.projectA, "/upstreams"), { kind: "mcp", transport: "stdio", name: "local", command: "test-shop" });
    client = await gatewayClient(world.server.baseUrl, "local", world.agentA.apiKey);
  });
  afterAll(async () => {
    await client?.close();
    await world?.stop();
  });

  it("forwards the gate's key in _meta as it does to HTTP upstreams: one refund, and the duplicate replays", async () => {
    const args = { orderId: "l-1", amount: 4 };
    const first = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    const second = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    expect([decisionOf(first), decisionOf(second)]).toEqual(["execute", "replay"]);
    expect(first._meta?.["idemgate/key"]).toMatch(/^[0-9a-f]{64}$/);
    const effects = effectsFor("l-1");
    expect(effects).toHaveLength(1);
    expect(effects[0]!.idempotencyKey).toBe(first._meta?.["idemgate/key"]);
  });

  it("a client's cancel reaches the upstream, which stops; the call is then a lost answer — the retry is told to verify, and it never runs again", async () => {
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/local__ship_order`, {
      policy: { leaseSeconds: 2 },
      reason: "test: a cancelled call's lease lapses quickly",
    });
    const args = { orderId: "l-cancel", slowMs: 20_000 };
    const giveUp = new AbortController();
    const first = client.callTool({ name: "ship_order", arguments: args }, undefined, { signal: giveUp.signal }).catch((error: unknown) => error);
    await waitFor(async () => effectsFor("l-cancel").some((effect) => effect.tool === "ship_order:started"), 60_000, "the upstream to start the call");
    giveUp.abort(new Error("the user changed their mind"));
    expect(await first).toBeInstanceOf(Error);
    await waitFor(async () => effectsFor("l-cancel").some((effect) => effect.tool === "ship_order:stopped"), 30_000, "the upstream to stop on the cancel");

    const answered = await retryUntilSettled(client, { name: "ship_order", arguments: args });
    expect(decisionOf(answered)).toBe("verify");
    expect(answered.isError).toBe(true);
    expect(JSON.stringify(answered.content)).toMatch(/may or may not have taken effect/);
    expect(effectsFor("l-cancel").filter((effect) => effect.tool === "ship_order")).toHaveLength(0);
    expect(effectsFor("l-cancel").filter((effect) => effect.tool === "ship_order:started")).toHaveLength(1);
  });
});
