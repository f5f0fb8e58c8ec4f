// POST, GET, DELETE /mcp/{upstream} — MCP clients (Streamable HTTP, project API key as bearer token): the upstream's tools, every tools/call through the gate.
import { mcpRoute } from "@/lib/http/with-mcp-route";

export const dynamic = "force-dynamic";

const handle = mcpRoute();
export const POST = handle;
export const GET = handle;
export const DELETE = handle;
