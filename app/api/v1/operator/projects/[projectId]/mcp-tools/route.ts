// GET /api/v1/operator/projects/{projectId}/mcp-tools — admins: every MCP upstream's tools with their annotations (listed live), for the tools page.
import { McpToolListSchema } from "@/lib/contract/upstreams";
import { ProjectParams } from "@/lib/http/params";
import { withOperatorRoute } from "@/lib/http/with-operator-route";
import { services } from "@/lib/server/composition-root";

export const GET = withOperatorRoute({
  role: "admin",
  params: ProjectParams,
  response: McpToolListSchema,
  handler: async ({ params, req }) => services().mcp.gateway.toolsOfProject(params.projectId, req.signal),
});
