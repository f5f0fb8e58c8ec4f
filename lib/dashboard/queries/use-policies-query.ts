import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  EffectivePolicyResponseSchema,
  PolicyChangeResponseSchema,
  PolicyHistoryResponseSchema,
  PolicyListResponseSchema,
  type PolicyUpdateRequestSchema,
} from "@/lib/contract/admin-policies";
import type { z } from "zod";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";

const toolUrl = (projectId: string, tool: string) => `${projectApi(projectId).admin}/policies/${encodeURIComponent(tool)}`;

/** Every tool seen or configured, with its last 24 h of traffic (admin role). */
export function usePoliciesQuery(projectId: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.policies(projectId),
    queryFn: () => fetchJson(`${projectApi(projectId).admin}/policies`, PolicyListResponseSchema),
    enabled,
  });
}

/** One tool's effective policy, its own layer and where each field comes from. */
export function usePolicyQuery(projectId: string, tool: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.policy(projectId, tool),
    queryFn: () => fetchJson(toolUrl(projectId, tool), EffectivePolicyResponseSchema),
    enabled,
  });
}

export function usePolicyHistoryQuery(projectId: string, tool: string) {
  return useQuery({
    queryKey: queryKeys.policyHistory(projectId, tool),
    queryFn: () => fetchJson(`${toolUrl(projectId, tool)}/revisions`, PolicyHistoryResponseSchema),
  });
}

export function useSavePolicyMutation(projectId: string, tool: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof PolicyUpdateRequestSchema>) => postJson(toolUrl(projectId, tool), PolicyChangeResponseSchema, body, "PUT"),
    onSuccess: (change) => client.setQueryData(queryKeys.policy(projectId, tool), change.effective),
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ["policy-history"] }),
        client.invalidateQueries({ queryKey: ["policies"] }),
      ]),
  });
}
