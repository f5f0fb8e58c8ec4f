import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { OperatorQueueSchema } from "@/lib/contract/operator-queue";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** What waits for a human (any role): runs whose undo stopped, unknown status checks, unfinished operations; verify tally over [from, to). */
export function useOperatorQueueQuery(projectId: string, from: string, to: string) {
  return useQuery({
    queryKey: queryKeys.operatorQueue(projectId, from, to),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/queue?${new URLSearchParams({ from, to })}`, OperatorQueueSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}
