// A scripted MCP client process for crash tests: connects to the gateway (Streamable HTTP, or
// stdio through `idemgate mcp`), prints its session id, calls one tool and prints the result, one
// JSON object per line. Run with tsx; the test SIGKILLs it mid-call and starts it again.
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const { values } = parseArgs({
  options: {
    transport: { type: "string", default: "http" },
    url: { type: "string" },
    upstream: { type: "string" },
    key: { type: "string" },
    session: { type: "string" },
    run: { type: "string" },
    tool: { type: "string", default: "refund_order" },
    args: { type: "string", default: "{}" },
  },
});
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const client = new Client({ name: "crash-test-agent", version: "1.0.0" });
if (values.transport === "stdio") {
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.resolve(import.meta.dirname, "../../scripts/idemgate-cli.mjs"), "mcp", "--upstream", values.upstream!],
      env: { ...process.env, IDEMGATE_URL: values.url!, IDEMGATE_API_KEY: values.key!, ...(values.run ? { IDEMGATE_RUN_ID: values.run } : {}) } as Record<string, string>,
      stderr: "inherit",
    }),
  );
  say({ connected: true });
} else {
  const transport = new StreamableHTTPClientTransport(new URL(`${values.url}/mcp/${values.upstream}`), {
    requestInit: { headers: { authorization: `Bearer ${values.key}`, ...(values.run ? { "idemgate-run-id": values.run } : {}) } },
    sessionId: values.session,
  });
  await client.connect(transport);
  say({ connected: true, sessionId: transport.sessionId });
}
say({ calling: values.tool });
const result = await client.callTool({ name: values.tool!, arguments: JSON.parse(values.args!) }, undefined, { timeout: 120_000 });
say({ result });
await client.close();
process.exit(0);
