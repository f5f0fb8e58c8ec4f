import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { OutboundAllowlistEntrySchema, OutboundAllowlistSchema } from "@/lib/contract/outbound";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { refetchAfterChange } from "./after-change";

const allowlistUrl = (projectId: string) => `${projectApi(projectId).operator}/outbound-allowlist`;
const queryKey = (projectId: string) => ["outbound-allowlist", { projectId }] as const;

/** Where the project's upstreams, MCP servers and webhooks may be called (admin role). */
export function useOutboundAllowlistQuery(projectId: string) {
  return useQuery({ queryKey: queryKey(projectId), queryFn: () => fetchJson(allowlistUrl(projectId), OutboundAllowlistSchema) });
}

export function useAddAllowlistEntryMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { pattern: string; note?: string }) => postJson(allowlistUrl(projectId), OutboundAllowlistEntrySchema, input),
    onSettled: () => refetchAfterChange(client, ["outbound-allowlist"]),
  });
}

export function useRemoveAllowlistEntryMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (entryId: string) => fetchJson(`${allowlistUrl(projectId)}/${encodeURIComponent(entryId)}`, OutboundAllowlistEntrySchema, { method: "DELETE" }),
    onSettled: () => refetchAfterChange(client, ["outbound-allowlist"]),
  });
}
