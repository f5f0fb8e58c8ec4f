import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { REPLAY_RUN_SIZE, type Subject } from "./types";

export interface McpCellsOptions {
  /** The test upstream (test/helpers/mcp-upstream.ts) on Streamable HTTP. */
  upstreamUrl: string;
  /** The same upstream through the gateway: `<server>/mcp/<name>`. */
  gatewayUrl: string;
  apiKey: string;
  replayPool: number;
  /** Stops the upstream when the floor subject closes. */
  stopUpstream: () => Promise<void>;
}

type Answer = { isError?: boolean; _meta?: Record<string, unknown> };

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "idemgate-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const call = async (client: Client, orderId: string, runId: string | null, decision: string | null) => {
  const answer = (await client.callTool({ name: "refund_order", arguments: { orderId, amount: 1 }, ...(runId ? { _meta: { "idemgate/runId": runId } } : {}) })) as Answer;
  if (answer.isError || (decision !== null && answer._meta?.["idemgate/decision"] !== decision)) {
    throw new Error(`refund_order ${orderId}: expected ${decision ?? "a result"}, got ${JSON.stringify(answer).slice(0, 300)}`);
  }
};

export interface McpGatewayCell {
  id: string;
  group: Subject["group"];
  label: string;
  floorId: string;
  /** The upstream through a gateway: `<server>/mcp/<name>`. */
  gatewayUrl: string;
  apiKey: string;
  replayPool: number;
}

/**
 * One gateway's cells: fresh = a new order each call (the gate executes: begin, forward, complete),
 * replay = a completed call again (one begin, the stored result). Ours, and with `--baseline` the
 * baseline's own server in front of the same upstream (bench/setup/baseline.ts).
 */
export async function mcpGatewaySubject(cell: McpGatewayCell): Promise<Subject> {
  const gated = await connect(cell.gatewayUrl, { authorization: `Bearer ${cell.apiKey}` });
  // Filled through the gateway itself (a call each), so a bounded pool: replays walk it in rotation.
  const pool = Math.min(cell.replayPool, 64);
  const replayRun = (i: number) => `mcp-replay-run-${Math.floor(i / REPLAY_RUN_SIZE)}`;
  return {
    id: cell.id,
    group: cell.group,
    label: cell.label,
    floorId: cell.floorId,
    workloads: [
      { name: "fresh", unit: "calls", clients: [1], op: (seq, tag) => call(gated, `fresh-${tag}-${seq}`, `mcp-fresh-${tag}-${seq}`, "execute") },
      {
        name: "replay",
        unit: "calls",
        clients: [1],
        prepare: async () => {
          for (let i = 0; i < pool; i++) await call(gated, `replay-${i}`, replayRun(i), "execute");
        },
        op: (seq) => call(gated, `replay-${seq % pool}`, replayRun(seq % pool), "replay"),
      },
    ],
    close: () => gated.close(),
  };
}

/**
 * The MCP gateway's added latency (issue #18): one SDK client calls the same side-effecting tool on
 * the upstream directly (the floor: both workloads are a plain call) and through `/mcp/{upstream}`
 * (mcpGatewaySubject). Every answer is checked.
 */
export async function mcpSubjects(options: McpCellsOptions): Promise<Subject[]> {
  const direct = await connect(options.upstreamUrl);
  const directOp = (seq: number, tag: string) => call(direct, `direct-${tag}-${seq}`, null, null);
  return [
    {
      id: "mcp.direct",
      group: "mcp",
      label: "MCP tools/call straight to the upstream (SDK client, Streamable HTTP)",
      workloads: [
        { name: "fresh", unit: "calls", clients: [1], op: directOp },
        { name: "replay", unit: "calls", clients: [1], op: directOp },
      ],
      close: async () => {
        await direct.close();
        await options.stopUpstream();
      },
    },
    await mcpGatewaySubject({
      id: "mcp.sqlite",
      group: "mcp",
      label: "Idemgate MCP gateway · SQLite (npm start, /mcp/{upstream})",
      floorId: "mcp.direct",
      gatewayUrl: options.gatewayUrl,
      apiKey: options.apiKey,
      replayPool: options.replayPool,
    }),
  ];
}
