// npm run bench:mcp: the MCP gateway's added latency (issue #18). The same SDK client calls the
// same upstream tool directly and through the gateway (`next start`, SQLite, one instance), side
// by side in one process, interleaved in rounds so load on the machine hits both alike:
// executions (a fresh order each call) and replays (a completed call again). Prints p50/p99 per
// kind and the added latency; needs a built app (`npm run build`).
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OutboundAllowlistEntrySchema } from "../lib/contract/outbound";
import { UpstreamSchema } from "../lib/contract/upstreams";
import { createTestProject } from "../test/helpers/fixtures";
import { launchServer } from "../test/helpers/launch-server";
import { startUpstream } from "../test/helpers/mcp-upstream";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../test/helpers/operator-client";
import { quantile } from "./stats";

const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 300);
const ROUNDS = 5;
/** Replays rotate through four calls per run, longer than the loop detector's cycles. */
const REPLAY_RUN_SIZE = 4;

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "mcp-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function timed(samples: number[], work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  const result = (await work()) as { isError?: boolean; _meta?: Record<string, unknown> };
  samples.push(performance.now() - started);
  if (result.isError) throw new Error(`a benchmarked call failed: ${JSON.stringify(result).slice(0, 300)}`);
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
};

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "idemgate-mcp-bench-"));
  const upstream = await startUpstream(path.join(tmp, "effects.jsonl"));
  const dbUrl = `file:${path.join(tmp, "bench.db")}`;
  const server = await launchServer(dbUrl, tmp, { ...OPERATOR_ENV, IDEMGATE_SQLITE_SYNCHRONOUS: process.env.IDEMGATE_SQLITE_SYNCHRONOUS ?? "full" });
  try {
    const { projectId, apiKey } = await createTestProject(dbUrl, "mcp bench");
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    await root.call(OutboundAllowlistEntrySchema, "POST", root.p(projectId, "/outbound-allowlist"), { pattern: "127.0.0.1" });
    await root.call(UpstreamSchema, "POST", root.p(projectId, "/upstreams"), { kind: "mcp", transport: "streamable_http", name: "shop", url: upstream.url });
    const direct = await connect(upstream.url);
    const gated = await connect(`${server.baseUrl}/mcp/shop`, { authorization: `Bearer ${apiKey}` });
    const call = (client: Client, orderId: string, runId?: string) =>
      client.callTool({ name: "refund_order", arguments: { orderId, amount: 1 }, ...(runId ? { _meta: { "idemgate/runId": runId } } : {}) });

    // Warm-up: connections, the first policy read, the JIT.
    for (let i = 0; i < 20; i++) await Promise.all([call(direct, `warm-${i}`), call(gated, `warm-${i}`, `warm-${i}`)]);
    const pool = Math.ceil(CALLS / ROUNDS);
    for (let i = 0; i < pool; i++) await call(gated, `replay-${i}`, `replay-run-${Math.floor(i / REPLAY_RUN_SIZE)}`);

    const samples = { direct: [] as number[], execute: [] as number[], replay: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < pool; i++) {
        const n = round * pool + i;
        await timed(samples.direct, () => call(direct, `direct-${n}`));
        await timed(samples.execute, () => call(gated, `fresh-${n}`, `fresh-run-${n}`));
        await timed(samples.replay, () => call(gated, `replay-${i}`, `replay-run-${Math.floor(i / REPLAY_RUN_SIZE)}`));
      }
    }
    const rows = { direct: summary(samples.direct), execute: summary(samples.execute), replay: summary(samples.replay) };
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    console.log("| MCP tools/call (sequential, one client) | n | p50 | p99 | added p50 | added p99 |");
    console.log("|---|---|---|---|---|---|");
    console.log(`| direct to the upstream | ${rows.direct.n} | ${ms(rows.direct.p50)} | ${ms(rows.direct.p99)} | — | — |`);
    for (const kind of ["execute", "replay"] as const) {
      const row = rows[kind];
      console.log(`| through the gateway, ${kind} | ${row.n} | ${ms(row.p50)} | ${ms(row.p99)} | ${ms(row.p50 - rows.direct.p50)} | ${ms(row.p99 - rows.direct.p99)} |`);
    }
    const executed = upstream.effects().filter((effect) => String(effect.args.orderId).startsWith("fresh-")).length;
    const replayedTwice = upstream.effects().filter((effect) => String(effect.args.orderId).startsWith("replay-")).length;
    console.log(`\nupstream side effects: ${executed} executions for ${rows.execute.n} gated fresh calls; ${replayedTwice} for ${pool} replayed calls (each executed once, replayed ${ROUNDS}×)`);
    await direct.close();
    await gated.close();
  } finally {
    await server.stop();
    await upstream.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
