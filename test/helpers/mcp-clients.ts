import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
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
