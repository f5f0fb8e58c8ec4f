import { useInfiniteQuery } from "@tanstack/react-query";
import { AuditListSchema } from "@/lib/contract/operator";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** The project's audit log, newest first (any role); "load more" follows the `before` cursor. */
export function useAuditQuery(projectId: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.audit(projectId),
    queryFn: ({ pageParam }) =>
      fetchJson(`${projectApi(projectId).operator}/audit?limit=50${pageParam ? `&before=${encodeURIComponent(pageParam)}` : ""}`, AuditListSchema),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextBefore,
    refetchInterval: POLL_MS,
  });
}
