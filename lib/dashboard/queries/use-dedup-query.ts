import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { DedupResponseSchema } from "@/lib/contract/stats";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** Decision figures for a range (any member): polled, the previous answer kept while the next loads. */
export function useDedupQuery(projectId: string, from: string, to: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.dedup(projectId, from, to),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/stats/dedup?${new URLSearchParams({ from, to })}`, DedupResponseSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
    enabled,
  });
}
