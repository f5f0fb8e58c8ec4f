import { useQuery } from "@tanstack/react-query";
import { StormDetailResponseSchema } from "@/lib/contract/storms";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** One storm and its rate against the baseline (any member); polled while it is open. */
export function useStormQuery(projectId: string, stormId: string) {
  return useQuery({
    queryKey: queryKeys.storm(projectId, stormId),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/storms/${encodeURIComponent(stormId)}`, StormDetailResponseSchema),
    refetchInterval: (query) => (query.state.data?.storm.status === "open" ? POLL_MS : false),
  });
}
