import { useQuery } from "@tanstack/react-query";
import { McpToolListSchema } from "@/lib/contract/upstreams";
import { fetchJson, projectApi } from "../fetch-json";

/** Every MCP upstream's tools with their annotations (admin role), listed live from the upstreams. */
export function useMcpToolsQuery(projectId: string, enabled: boolean) {
  return useQuery({
    queryKey: ["mcp-tools", { projectId }] as const,
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/mcp-tools`, McpToolListSchema),
    enabled,
    staleTime: 60_000,
  });
}
