// The test upstream's tools on stdio, for the gateway's stdio upstreams (a command the gate
// spawns): `node --import tsx test/helpers/mcp-stdio-upstream.ts <effects file>`.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { upstreamServer } from "./mcp-upstream";

const effectsFile = process.argv[2];
if (!effectsFile) throw new Error("usage: mcp-stdio-upstream.ts <effects file>");
void upstreamServer(effectsFile).connect(new StdioServerTransport());
