import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { StormListResponseSchema } from "@/lib/contract/storms";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** Retry-storm incidents (any member), latest first. */
export function useStormsQuery(projectId: string, status?: "open" | "closed", enabled = true) {
  return useQuery({
    queryKey: queryKeys.storms(projectId, status),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/storms?${new URLSearchParams(status ? { status } : {})}`, StormListResponseSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
    enabled,
  });
}
