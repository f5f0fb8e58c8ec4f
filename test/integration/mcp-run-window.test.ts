import path from "node:path";
import { mkdtempSync } from "node:fs";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MCPServerStreamableHttp } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PolicyChangeResponseSchema } from "../../lib/contract/admin-policies";
import { PROVIDERS } from "../helpers/databases";
import { type Result, allowOutbound, decisionOf, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { sql } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";
import { type TwoProjects, startTwoProjects } from "../helpers/two-projects";

/**
 * Issue #34 §2: a client that names no run (Claude Desktop, Cursor, a bare SDK client, the stdio
 * entrypoint without IDEMGATE_RUN_ID) is in its API key's anonymous run. A reconnect, a new session
 * or a restarted entrypoint within the tool's `mcp.runWindowSeconds` is the same user retrying: one
 * effect. Past the window, the same call is another conversation's: it runs. A client that names
 * its run (`_meta` idemgate/runId, the Idemgate-Run-Id header) keeps the run it names.
 */
describe.each(PROVIDERS)("%s: MCP calls without a run identity dedupe within the run window", (provider) => {
  let world: TwoProjects;
  let upstream: RunningUpstream;
  const cli = path.resolve(import.meta.dirname, "../../scripts/idemgate-cli.mjs");
  const effectsFor = (tool: string, orderId: string) => upstream.effects().filter((effect) => effect.tool === tool && effect.args.orderId === orderId);

  beforeAll(async () => {
    upstream = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-window-")), "effects.jsonl"));
    world = await startTwoProjects(provider);
    await allowOutbound(world.root, world.projectA, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectA, "shop", upstream.url);
  });
  afterAll(async () => {
    await world?.stop();
    await upstream?.stop();
  });

  /** One conversation on a fresh connection (a new MCP session), closed after its call. */
  async function inNewSession(args: Record<string, unknown>, tool = "refund_order", headers?: Record<string, string>): Promise<Result> {
    const client = await gatewayClient(world.server.baseUrl, "shop", world.agentA.apiKey, { headers });
    try {
      return (await client.callTool({ name: tool, arguments: args })) as Result;
    } finally {
      await client.close();
    }
  }

  /** The stdio entrypoint as Claude Desktop or Cursor start it (no IDEMGATE_RUN_ID), stopped after its call. */
  async function inNewEntrypoint(args: Record<string, unknown>): Promise<Result> {
    const client = new SdkClient({ name: "desktop-like-client", version: "1.0.0" });
    const env = { ...process.env, IDEMGATE_URL: world.server.baseUrl, IDEMGATE_API_KEY: world.agentA.apiKey } as Record<string, string>;
    delete env.IDEMGATE_RUN_ID;
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, "mcp", "--upstream", "shop"], env, stderr: "inherit" }));
    try {
      return (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    } finally {
      await client.close();
    }
  }

  it("a reconnect and a new session (2025 session revisions) within the window: one refund, the second replays", async () => {
    const args = { orderId: "w-session", amount: 3 };
    expect(decisionOf(await inNewSession(args))).toBe("execute");
    const again = await inNewSession(args);
    expect(decisionOf(again)).toBe("replay");
    expect(effectsFor("refund_order", "w-session")).toHaveLength(1);
    // The run the calls share is the API key's anonymous one, not a session's.
    const rows = await sql<{ run_id: string }>(world.databaseUrl, "SELECT run_id FROM call_records WHERE project_id = $1 AND args LIKE $2", [world.projectA, "%w-session%"]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.run_id).toMatch(/^key:/);
  });

  it("a stateless 2026-07-28 client's second conversation within the window: one refund", async () => {
    const modern = async () => {
      const client = new ModernClient({ name: "modern-window-client", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(new ModernTransport(new URL(`${world.server.baseUrl}/mcp/shop`), { requestInit: { headers: { authorization: `Bearer ${world.agentA.apiKey}` } } }));
      try {
        return (await client.callTool({ name: "refund_order", arguments: { orderId: "w-modern", amount: 4 } })) as Result;
      } finally {
        await client.close();
      }
    };
    expect(decisionOf(await modern())).toBe("execute");
    expect(decisionOf(await modern())).toBe("replay");
    expect(effectsFor("refund_order", "w-modern")).toHaveLength(1);
  });

  it("the stdio entrypoint restarted without IDEMGATE_RUN_ID (as Claude Desktop and Cursor run it) within the window: one refund", async () => {
    const args = { orderId: "w-stdio", amount: 5 };
    expect(decisionOf(await inNewEntrypoint(args))).toBe("execute");
    expect(decisionOf(await inNewEntrypoint(args))).toBe("replay");
    expect(effectsFor("refund_order", "w-stdio")).toHaveLength(1);
  });

  it("two conversations of a stateless client outside the window: two refunds (the window, not the day-long TTL)", async () => {
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__ship_order`, {
      policy: { mcp: { runWindowSeconds: 1 } },
      reason: "test: a short run window",
    });
    const args = { orderId: "w-two" };
    expect(decisionOf(await inNewSession(args, "ship_order"))).toBe("execute");
    // The record is kept for the window only: once it has expired, a later conversation is another one.
    const expiresAt = async () =>
      (await sql<{ expires_at: string | number }>(world.databaseUrl, "SELECT expires_at FROM call_records WHERE project_id = $1 AND tool = $2 AND args LIKE $3", [world.projectA, "shop__ship_order", "%w-two%"])).map((row) => Number(row.expires_at));
    const [kept] = await expiresAt();
    const [completed] = (await sql<{ completed_at: string | number }>(world.databaseUrl, "SELECT completed_at FROM call_records WHERE project_id = $1 AND tool = $2 AND args LIKE $3", [world.projectA, "shop__ship_order", "%w-two%"])).map((row) => Number(row.completed_at));
    expect(kept! - completed!).toBe(1_000);
    await waitFor(async () => Date.now() > kept! + 50, 30_000, "the run window to pass");
    expect(decisionOf(await inNewSession(args, "ship_order"))).toBe("execute");
    expect(effectsFor("ship_order", "w-two")).toHaveLength(2);
  });

  it("a client that names its run keeps it, for the whole TTL: the same conversation across reconnects is one refund, another conversation is another (OpenAI Agents JS, _meta from toolMetaResolver)", async () => {
    const server = () =>
      new MCPServerStreamableHttp({ url: `${world.server.baseUrl}/mcp/shop`, name: "shop", requestInit: { headers: { authorization: `Bearer ${world.agentA.apiKey}` } } });
    // What a toolMetaResolver returning { "idemgate/runId": <the conversation's id> } makes the SDK send.
    const call = async (conversation: string) => {
      const agents = server();
      await agents.connect();
      try {
        return (await agents.callToolResult("refund_order", { orderId: "w-named", amount: 6 }, { "idemgate/runId": conversation })) as Result;
      } finally {
        await agents.close();
      }
    };
    expect(decisionOf(await call("conv-1"))).toBe("execute");
    expect(decisionOf(await call("conv-1"))).toBe("replay");
    expect(decisionOf(await call("conv-2"))).toBe("execute");
    expect(effectsFor("refund_order", "w-named")).toHaveLength(2);
    // A named run's outcome is kept for the TTL (a day by default), not the window.
    const rows = await sql<{ expires_at: string | number; completed_at: string | number }>(world.databaseUrl, "SELECT expires_at, completed_at FROM call_records WHERE project_id = $1 AND run_id = $2", [world.projectA, "conv-1"]);
    expect(Number(rows[0]!.expires_at) - Number(rows[0]!.completed_at)).toBe(86_400_000);
    // The Idemgate-Run-Id header names a run as well.
    expect(decisionOf(await inNewSession({ orderId: "w-header" }, "refund_order", { "idemgate-run-id": "header-run-1" }))).toBe("execute");
    expect(decisionOf(await inNewSession({ orderId: "w-header" }, "refund_order", { "idemgate-run-id": "header-run-2" }))).toBe("execute");
    expect(effectsFor("refund_order", "w-header")).toHaveLength(2);
  });
});
