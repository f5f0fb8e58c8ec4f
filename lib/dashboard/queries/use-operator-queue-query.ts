import { useQuery } from "@tanstack/react-query";
import { OperatorQueueSchema } from "@/lib/contract/operator-queue";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** What waits for a human (any role): runs whose undo stopped, unknown status checks, unfinished operations. */
export function useOperatorQueueQuery(projectId: string) {
  return useQuery({
    queryKey: queryKeys.operatorQueue(projectId),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/queue`, OperatorQueueSchema),
    refetchInterval: POLL_MS,
  });
}
