import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  EffectivePolicyResponseSchema,
  PolicyChangeResponseSchema,
  PolicyHistoryResponseSchema,
  PolicyListResponseSchema,
  type PolicyUpdateRequestSchema,
  SimulateResponseSchema,
} from "@/lib/contract/admin-policies";
import type { z } from "zod";
import type { PolicyOverrides } from "@/lib/core/policy";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";
import { refetchAfterChange, showAfterChange } from "./after-change";

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
    onSuccess: (change) => showAfterChange(client, queryKeys.policy(projectId, tool), change.effective),
    onSettled: () =>
      refetchAfterChange(client, ["policy-history"], ["policies"], ["audit"]),
  });
}

/** Make a past revision the tool's layer again (as a new revision, with a reason). */
export function useRestorePolicyMutation(projectId: string, tool: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ version, reason }: { version: number; reason: string }) =>
      postJson(`${toolUrl(projectId, tool)}/revisions/${version}/restore`, PolicyChangeResponseSchema, { reason }),
    onSuccess: (change) => showAfterChange(client, queryKeys.policy(projectId, tool), change.effective),
    onSettled: () =>
      refetchAfterChange(client, ["policy-history"], ["policies"], ["audit"]),
  });
}

/**
 * What a draft of the tool's own layer would have decided for its latest calls. Keyed on the draft,
 * so going back to an earlier draft answers from cache; the previous answer stays on screen while
 * the next one loads, so the numbers change in place instead of flashing a spinner per keystroke.
 */
export function usePolicySimulationQuery(projectId: string, tool: string, draft: PolicyOverrides | null) {
  return useQuery({
    queryKey: queryKeys.policySimulation(projectId, tool, draft),
    queryFn: () => postJson(`${toolUrl(projectId, tool)}/simulate`, SimulateResponseSchema, { policy: draft }),
    enabled: draft !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}
