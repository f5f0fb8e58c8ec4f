#!/usr/bin/env node
// `idemgate mcp --upstream <name>`: an MCP server on stdio for local clients (Claude Desktop,
// Cursor, …) that forwards every request to the gate's Streamable HTTP endpoint /mcp/<name>, so
// each tools/call goes through the gate. Configuration from the environment:
//   IDEMGATE_URL      the gate (default http://localhost:3000)
//   IDEMGATE_API_KEY  the project API key (required)
//   IDEMGATE_RUN_ID   the run the calls belong to. Unset, the calls are in the API key's anonymous
//                     run: identical calls dedupe within the tool's mcp.runWindowSeconds (5 min by
//                     default), across restarts of this entrypoint too, and run again after it
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Server } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";

function usage(message) {
  process.stderr.write(`${message}\nusage: IDEMGATE_API_KEY=ig_… [IDEMGATE_URL=http://localhost:3000] idemgate mcp --upstream <name>\n`);
  process.exit(2);
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { upstream: { type: "string" } } });
if (positionals[0] !== "mcp") usage("unknown command");
if (!values.upstream || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(values.upstream)) usage("--upstream <name> is required");
const apiKey = process.env.IDEMGATE_API_KEY;
if (!apiKey) usage("IDEMGATE_API_KEY is not set");
const base = (process.env.IDEMGATE_URL ?? "http://localhost:3000").replace(/\/+$/, "");
const runId = process.env.IDEMGATE_RUN_ID || null;

// One HTTP client for the process's lifetime, on the session revisions (2025-11-25): there a cancel
// is a message of its own that the gate passes to the upstream, where a 2026-07-28 client can only
// close its stream, which the gate cannot tell from a crash.
const gate = new Client({ name: "idemgate-stdio", version: "0.1.0" });
await gate.connect(
  new StreamableHTTPClientTransport(new URL(`${base}/mcp/${values.upstream}`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}`, ...(runId ? { "idemgate-run-id": runId } : {}) } },
  }),
);

// A client-sent `idempotencyKey` on tools/call (the MCP SEP on request idempotency) by JSON-RPC id:
// the SDK's request schema drops fields it does not know, so it is read off the wire as messages
// arrive and passed on to the gate, which keys on it (toolCallId) as it does for HTTP clients.
const idempotencyKeys = new Map();
const wire = new StdioServerTransport();
let deliver;
Object.defineProperty(wire, "onmessage", {
  get: () => deliver,
  set: (handler) => {
    deliver = handler
      ? (message, extra) => {
          const { id, method, params } = message ?? {};
          if (method === "tools/call" && (typeof id === "string" || typeof id === "number") && params?.idempotencyKey !== undefined) idempotencyKeys.set(String(id), params.idempotencyKey);
          handler(message, extra);
        }
      : handler;
  },
});

serveStdio(() => {
  const server = new Server({ name: `idemgate/${values.upstream}`, version: "0.1.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async (request) => gate.listTools(request.params));
  server.setRequestHandler("tools/call", async (request, context) => {
    const progressToken = context.mcpReq._meta?.progressToken;
    const id = String(context.mcpReq.id);
    const idempotencyKey = idempotencyKeys.get(id);
    idempotencyKeys.delete(id);
    return gate.callTool(
      { ...request.params, _meta: context.mcpReq._meta, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) },
      {
        // The gate waits up to 10 s for a duplicate's outcome before it answers: never time out first.
        timeout: 10 * 60_000,
        // The local client's notifications/cancelled aborts this signal: the SDK passes it on to the
        // gate, which passes it on to the upstream (as a cancel over HTTP does).
        signal: context.mcpReq.signal,
        resetTimeoutOnProgress: true,
        onprogress:
          progressToken === undefined ? undefined : (progress) => void context.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...progress } }),
      },
    );
  });
  return server;
}, { transport: wire, onerror: (error) => process.stderr.write(`[idemgate] ${error.message}\n`) });
