// npm run bench:mcp-profile: where an MCP tools/call's time goes inside the gateway (issue #34 §4).
// The gateway's route runs in this process (no Next.js, no HTTP server in front of it): an SDK
// client reaches it through a fetch that calls the route handler directly, and the services' steps
// are timed by wrapping them. Prints, per kind of call (execute, replay), each step's p50 and the
// share of the whole; `npm run bench:mcp` measures the served gateway end to end.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { ensureMigrated } from "../lib/store/connection/migrate";
import { createTestProject } from "../test/helpers/fixtures";
import { startUpstream } from "../test/helpers/mcp-upstream";
import { OPERATOR_ENV } from "../test/helpers/operator-client";
import { quantile } from "./stats";

const CALLS = Number(process.env.MCP_PROFILE_CALLS ?? 200);
const SYSTEM = { type: "system" as const, id: null, label: null, ip: null, userAgent: null };

type Samples = Map<string, number[]>;
let current: Samples | null = null;

/** Replaces `target[method]` with a timed copy: its durations go to the call being profiled. */
function timed<T extends object>(target: T, method: keyof T & string, label: string): void {
  const original = (target[method] as (...args: unknown[]) => unknown).bind(target);
  (target as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    const samples = current;
    const started = performance.now();
    try {
      return await original(...args);
    } finally {
      if (samples) {
        const list = samples.get(label) ?? [];
        list.push(performance.now() - started);
        samples.set(label, list);
      }
    }
  };
}

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "idemgate-mcp-profile-"));
  const databaseUrl = `file:${path.join(tmp, "profile.db")}`;
  await ensureMigrated(parseDatabaseUrl(databaseUrl));
  Object.assign(process.env, OPERATOR_ENV, { DATABASE_URL: databaseUrl, IDEMGATE_DATA_DIR: tmp, IDEMGATE_SQLITE_SYNCHRONOUS: process.env.IDEMGATE_SQLITE_SYNCHRONOUS ?? "full" });
  const { services } = await import("../lib/server/composition-root");
  const { mcpRoute } = await import("../lib/http/with-mcp-route");
  const upstream = await startUpstream(path.join(tmp, "effects.jsonl"));
  const { projectId, apiKey } = await createTestProject(databaseUrl, "mcp profile");
  const all = services();
  await all.outbound.allowlist.add(projectId, { pattern: "127.0.0.1" }, SYSTEM);
  await all.upstreams.service.create(projectId, { kind: "mcp", transport: "streamable_http", name: "shop", url: upstream.url } as never, SYSTEM);

  timed(all.gate.auth, "authenticate", "route: API key");
  timed(all.mcp.gateway, "resolve", "route: upstream row");
  timed(all.mcp.sessions, "find", "route: session row");
  timed(all.outbound.guard, "assertAllowed", "gateway: allowlist check");
  timed(all.outbound.guard, "fetch", "upstream: HTTP request (guarded fetch)");
  timed(all.gate.service, "begin", "gate: begin");
  timed(all.gate.service, "complete", "gate: complete");
  timed(all.mcp.gateway, "callTool", "gateway: callTool (begin → upstream → complete)");
  timed(all.mcp.handler, "fetch", "SDK handler (server per request + callTool)");
  const { Client: UpstreamClient } = await import("@modelcontextprotocol/client");
  timed(UpstreamClient.prototype, "callTool", "upstream: SDK client callTool (send, answer streamed back, validated)");
  timed((all.mcp.gateway as unknown as { connector: object }).connector as { client: () => Promise<unknown> }, "client", "gateway: upstream client (pooled)");
  timed(all.gate.policies, "effective", "gateway: policy read (tool errors)");

  const route = mcpRoute();
  const inProcess = async (input: string | URL | Request, init?: RequestInit) => {
    const samples = current;
    const started = performance.now();
    const response = await route(new Request(input, init), { params: Promise.resolve({ upstream: "shop" }) });
    // The body is the SSE stream of the answer: read whole, so the time covers it.
    const text = await response.text();
    if (samples) samples.set("route: whole request", [...(samples.get("route: whole request") ?? []), performance.now() - started]);
    return new Response(text, { status: response.status, headers: response.headers });
  };
  const gated = new Client({ name: "mcp-profile", version: "1.0.0" });
  await gated.connect(new StreamableHTTPClientTransport(new URL("http://gate.local/mcp/shop"), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } }, fetch: inProcess }));
  const call = (orderId: string, runId: string) => gated.callTool({ name: "refund_order", arguments: { orderId, amount: 1 }, _meta: { "idemgate/runId": runId } });
  for (let i = 0; i < 20; i++) await call(`warm-${i}`, `warm-${i}`);
  for (let i = 0; i < CALLS; i++) await call(`replay-${i}`, `replay-run-${i}`);

  const profile = { execute: new Map() as Samples, replay: new Map() as Samples };
  const client: Samples = new Map();
  for (let i = 0; i < CALLS; i++) {
    for (const kind of ["execute", "replay"] as const) {
      current = profile[kind];
      const started = performance.now();
      const result = (await (kind === "execute" ? call(`fresh-${i}`, `fresh-run-${i}`) : call(`replay-${i}`, `replay-run-${i}`))) as { _meta?: Record<string, unknown> };
      if (result._meta?.["idemgate/decision"] !== kind) throw new Error(`expected ${kind}, got ${String(result._meta?.["idemgate/decision"])}`);
      client.set(kind, [...(client.get(kind) ?? []), performance.now() - started]);
      current = null;
    }
  }
  const p50 = (values: number[] | undefined) => (values && values.length > 0 ? quantile([...values].sort((a, b) => a - b), 0.5) : 0);
  for (const kind of ["execute", "replay"] as const) {
    const whole = p50(client.get(kind));
    console.log(`\n| ${kind}: step (in-process route, ${CALLS} calls) | calls per request | p50 | share of the client's ${whole.toFixed(2)} ms |`);
    console.log("|---|---|---|---|");
    for (const [label, values] of [...profile[kind].entries()].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`| ${label} | ${(values.length / CALLS).toFixed(1)} | ${p50(values).toFixed(2)} ms | ${((p50(values) / whole) * 100).toFixed(0)} % |`);
    }
  }
  await gated.close();
  await upstream.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
