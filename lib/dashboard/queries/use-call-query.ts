import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CallStatusSchema } from "@/lib/contract/v1";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";
import { showAfterChange } from "./after-change";

const callUrl = (projectId: string, callId: string) => `${projectApi(projectId).operator}/calls/${encodeURIComponent(callId)}`;

/** A call's record (any role). */
export function useCallQuery(projectId: string, callId: string) {
  return useQuery({ queryKey: queryKeys.call(projectId, callId), queryFn: () => fetchJson(callUrl(projectId, callId), CallStatusSchema) });
}

/** Evict a call's outcome (operator role), with a reason. */
export function useEvictCallMutation(projectId: string, callId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (reason: string) => postJson(`${callUrl(projectId, callId)}/evict`, CallStatusSchema, { reason }),
    onSuccess: (call) => showAfterChange(client, queryKeys.call(projectId, callId), call),
  });
}
