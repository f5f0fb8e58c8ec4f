import { useInfiniteQuery } from "@tanstack/react-query";
import { CallListSchema } from "@/lib/contract/calls";
import { type CallFilters, filtersToSearch } from "../call-filters";
import { fetchJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";

export function callsUrl(projectId: string, filters: CallFilters, cursor: string | null): string {
  const search = filtersToSearch(filters);
  if (cursor) search.set("cursor", cursor);
  const query = search.toString();
  return `${projectApi(projectId).operator}/calls${query ? `?${query}` : ""}`;
}

/** The project's calls (any role), newest first; "load more" fetches the next cursor page. */
export function useCallsQuery(projectId: string, filters: CallFilters) {
  return useInfiniteQuery({
    queryKey: queryKeys.calls(projectId, filters),
    queryFn: ({ pageParam }) => fetchJson(callsUrl(projectId, filters, pageParam), CallListSchema),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}
