import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { TimeseriesResponseSchema } from "@/lib/contract/stats";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** Decisions per bucket (any member): polled without flicker (the previous series stays until the next arrives). */
export function useTimeseriesQuery(projectId: string, from: string, to: string, bucket: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.timeseries(projectId, from, to, bucket),
    queryFn: () =>
      fetchJson(`${projectApi(projectId).operator}/stats/timeseries?${new URLSearchParams({ from, to, bucket })}`, TimeseriesResponseSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
    enabled,
  });
}
