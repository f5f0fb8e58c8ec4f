import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { StormListResponseSchema } from "@/lib/contract/storms";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** The most storms one read returns (the API's bound): the storms page sorts what it holds and says when it is this many. */
export const STORMS_LIMIT = 200;

/** Retry-storm incidents (any member), latest first, up to STORMS_LIMIT. */
export function useStormsQuery(projectId: string, status?: "open" | "closed", enabled = true) {
  return useQuery({
    queryKey: queryKeys.storms(projectId, status),
    queryFn: () =>
      fetchJson(`${projectApi(projectId).operator}/storms?${new URLSearchParams({ ...(status ? { status } : {}), limit: String(STORMS_LIMIT) })}`, StormListResponseSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
    enabled,
  });
}
