import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { RunDetailSchema, RunListSchema } from "@/lib/contract/calls";
import { fetchJson, projectApi } from "../fetch-json";
import { type RunFilters, runFiltersToSearch } from "../run-filters";
import { queryKeys } from "./keys";

/**
 * Runs (any role) matching the search, in the chosen sort (the API's `started:desc`, newest first,
 * when absent), sorted by the server over every run; "load more" fetches the next cursor page.
 */
export function useRunsQuery(projectId: string, limit?: number, filters: RunFilters = {}, sort?: string) {
  const filterSearch = runFiltersToSearch(filters).toString();
  return useInfiniteQuery({
    queryKey: [...queryKeys.runs(projectId), { limit: limit ?? null, search: filterSearch, sort: sort ?? null }],
    queryFn: ({ pageParam }) => {
      const search = new URLSearchParams(filterSearch);
      if (limit) search.set("limit", String(limit));
      if (sort) search.set("sort", sort);
      if (pageParam) search.set("cursor", pageParam);
      const query = search.toString();
      return fetchJson(`${projectApi(projectId).operator}/runs${query ? `?${query}` : ""}`, RunListSchema);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

/** One run's calls and events across its subagents (any role). */
export function useRunQuery(projectId: string, runId: string) {
  return useQuery({
    queryKey: queryKeys.run(projectId, runId),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/runs/${encodeURIComponent(runId)}`, RunDetailSchema),
  });
}
