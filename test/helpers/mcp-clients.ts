import { type ChildProcess, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OutboundAllowlistEntrySchema } from "../../lib/contract/outbound";
import { PolicyChangeResponseSchema } from "../../lib/contract/admin-policies";
import { UpstreamSchema } from "../../lib/contract/upstreams";
import type { OperatorClient } from "./operator-client";
import { waitFor } from "./storm-scenario";
import type { TwoProjects } from "./two-projects";

/** A real SDK client (v1, the session-based 2025 revisions most clients speak) on the gateway. */
export async function gatewayClient(baseUrl: string, upstream: string, apiKey: string, options: { sessionId?: string; headers?: Record<string, string> } = {}): Promise<Client> {
  const client = new Client({ name: "gateway-test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp/${upstream}`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}`, ...options.headers } },
    sessionId: options.sessionId,
  });
  await client.connect(transport);
  return client;
}

/** The upstream registered through the admin API, as an operator would. */
export function registerMcpUpstream(admin: OperatorClient, projectId: string, name: string, url: string) {
  return admin.call(UpstreamSchema, "POST", admin.p(projectId, "/upstreams"), { kind: "mcp", transport: "streamable_http", name, url });
}

export function decisionOf(result: { _meta?: Record<string, unknown> }): unknown {
  return result._meta?.["idemgate/decision"];
}

/** Lets the project's upstream requests reach an address (the test upstreams listen on loopback). */
export function allowOutbound(admin: OperatorClient, projectId: string, pattern: string) {
  return admin.call(OutboundAllowlistEntrySchema, "POST", admin.p(projectId, "/outbound-allowlist"), { pattern });
}

/** A scripted client process (test/helpers/mcp-agent.mts), its output as JSON lines. */
export function spawnAgent(args: Record<string, string>): { child: ChildProcess; lines: Record<string, unknown>[]; waitFor(key: string, timeoutMs?: number): Promise<Record<string, unknown>> } {
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "test/helpers/mcp-agent.mts", ...Object.entries(args).flatMap(([key, value]) => [`--${key}`, value])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  let buffer = "";
  let errors = "";
  child.stderr!.on("data", (chunk) => (errors += chunk));
  child.stdout!.on("data", (chunk) => {
    buffer += chunk;
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>);
      buffer = buffer.slice(newline + 1);
    }
  });
  const waitFor = async (key: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines.find((line) => key in line);
      if (found) return found;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`agent never printed ${key} (exit ${child.exitCode}): ${errors}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, lines, waitFor };
}

/** A tools/call result as the gateway answers it. */
export type Result = { content: unknown; isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };

/** Calls again while the gate answers in_progress (an abandoned attempt's lease is live), until it answers something else. */
export async function retryUntilSettled(client: Client, params: { name: string; arguments: Record<string, unknown> }): Promise<Result> {
  let answered: Result | null = null;
  await waitFor(
    async () => {
      const again = (await client.callTool(params)) as Result;
      if (decisionOf(again) === "in_progress") return false;
      answered = again;
      return true;
    },
    90_000,
    "the retry to be answered",
  );
  return answered!;
}

/** A restarted agent process, run again while the gate says the first attempt is still in progress. */
export async function restartUntilSettled(spawn: () => { waitFor(event: string): Promise<unknown> }): Promise<Result> {
  return waitFor(
    async () => {
      const { result } = (await spawn().waitFor("result")) as { result: Result };
      return decisionOf(result) === "in_progress" ? null : result;
    },
    180_000,
    "a restarted agent to get the call's outcome",
  );
}

/** Runs `work` with shop__refund_order's own policy layer turning the loop detector off, then clears the layer. */
export async function withoutLoopDetection<T>(world: TwoProjects, work: () => Promise<T>): Promise<T> {
  const path = `/api/v1/admin/projects/${world.projectA}/policies/shop__refund_order`;
  await world.root.call(PolicyChangeResponseSchema, "PUT", path, { policy: { loop: { enabled: false } }, reason: "test: concurrent duplicates" });
  try {
    return await work();
  } finally {
    await world.root.call(PolicyChangeResponseSchema, "PUT", path, { policy: {}, reason: "test: back to the defaults" });
  }
}
