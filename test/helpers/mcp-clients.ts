import { type ChildProcess, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OutboundAllowlistEntrySchema } from "../../lib/contract/outbound";
import { UpstreamSchema } from "../../lib/contract/upstreams";
import type { OperatorClient } from "./operator-client";

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
