import { useInfiniteQuery } from "@tanstack/react-query";
import { AuditListSchema } from "@/lib/contract/operator";
import { type AuditFilters, auditFiltersToSearch } from "../audit-filters";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** The project's audit log, newest first (any role), filtered; "load more" follows the `before` cursor. */
export function useAuditQuery(projectId: string, filters: AuditFilters = {}) {
  return useInfiniteQuery({
    queryKey: queryKeys.audit(projectId, filters),
    queryFn: ({ pageParam }) => {
      const search = auditFiltersToSearch(filters);
      search.set("limit", "50");
      if (pageParam) search.set("before", pageParam);
      return fetchJson(`${projectApi(projectId).operator}/audit?${search}`, AuditListSchema);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextBefore,
    refetchInterval: POLL_MS,
  });
}
