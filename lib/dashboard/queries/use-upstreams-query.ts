import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type CreateUpstream, UpstreamListSchema, UpstreamSchema } from "@/lib/contract/upstreams";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { refetchAfterChange } from "./after-change";

const upstreamsUrl = (projectId: string) => `${projectApi(projectId).operator}/upstreams`;
const queryKey = (projectId: string) => ["upstreams", { projectId }] as const;

/** The project's MCP and HTTP upstreams (admin role); secrets are never in the answer. */
export function useUpstreamsQuery(projectId: string) {
  return useQuery({ queryKey: queryKey(projectId), queryFn: () => fetchJson(upstreamsUrl(projectId), UpstreamListSchema) });
}

export function useCreateUpstreamMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateUpstream) => postJson(upstreamsUrl(projectId), UpstreamSchema, input),
    onSettled: () => refetchAfterChange(client, ["upstreams"]),
  });
}

export function useDeleteUpstreamMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (upstreamId: string) => fetchJson(`${upstreamsUrl(projectId)}/${encodeURIComponent(upstreamId)}`, UpstreamSchema, { method: "DELETE" }),
    onSettled: () => refetchAfterChange(client, ["upstreams"]),
  });
}
