import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { CallListSchema } from "@/lib/contract/calls";
import { type CallFilters, filtersToSearch } from "../call-filters";
import type { SortState } from "../table-sort";
import { fetchJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";

/** How often a followed list, and a paused list's "N new" count, ask for new calls. */
export const FOLLOW_INTERVAL_MS = 2_000;

/** The API's sort (`tool:desc`) for the page's URL sort (`-tool`); absent is the API's default, newest first. */
export function apiSort(sort: SortState | null): string | undefined {
  return sort ? `${sort.column}:${sort.dir}` : undefined;
}

export function callsUrl(projectId: string, filters: CallFilters, cursor: string | null, sort?: string): string {
  const search = filtersToSearch(filters);
  if (sort) search.set("sort", sort);
  if (cursor) search.set("cursor", cursor);
  const query = search.toString();
  return `${projectApi(projectId).operator}/calls${query ? `?${query}` : ""}`;
}

/**
 * The project's calls (any role) in the chosen sort, sorted by the server over the whole list
 * (newest first by default); "load more" fetches the next cursor page in the same order.
 * Following, it refetches on an interval.
 */
export function useCallsQuery(projectId: string, filters: CallFilters, following = false, sort?: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.calls(projectId, { ...filters, sort: sort ?? null }),
    queryFn: ({ pageParam }) => fetchJson(callsUrl(projectId, filters, pageParam, sort), CallListSchema),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: following ? FOLLOW_INTERVAL_MS : false,
  });
}

/**
 * While the list is paused: how many calls matching its filters arrived since its newest shown
 * call (a first page of the newest, compared by id), so the list stays still and says "N new".
 * The peek has its own query key: polling it never moves the list.
 */
export function useNewCallsCount(projectId: string, filters: CallFilters, shown: { newestAt: string | null; ids: ReadonlySet<string> }, enabled: boolean): number {
  const peek = useQuery({
    queryKey: ["calls-peek", { projectId, ...filters }] as const,
    queryFn: () => fetchJson(callsUrl(projectId, { ...filters, limit: 200 }, null), CallListSchema),
    refetchInterval: FOLLOW_INTERVAL_MS,
    enabled,
  });
  if (!enabled || !peek.data) return 0;
  const newest = shown.newestAt === null ? Number.NEGATIVE_INFINITY : Date.parse(shown.newestAt);
  return peek.data.calls.filter((call) => !shown.ids.has(call.callId) && Date.parse(call.createdAt) >= newest).length;
}
