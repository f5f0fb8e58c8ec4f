import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { CallListSchema } from "@/lib/contract/calls";
import { type CallFilters, filtersToSearch } from "../call-filters";
import { fetchJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";

/** How often a followed list, and a paused list's "N new" count, ask for new calls. */
export const FOLLOW_INTERVAL_MS = 2_000;

export function callsUrl(projectId: string, filters: CallFilters, cursor: string | null): string {
  const search = filtersToSearch(filters);
  if (cursor) search.set("cursor", cursor);
  const query = search.toString();
  return `${projectApi(projectId).operator}/calls${query ? `?${query}` : ""}`;
}

/** The project's calls (any role), newest first; "load more" fetches the next cursor page. Following, it refetches on an interval. */
export function useCallsQuery(projectId: string, filters: CallFilters, following = false) {
  return useInfiniteQuery({
    queryKey: queryKeys.calls(projectId, filters),
    queryFn: ({ pageParam }) => fetchJson(callsUrl(projectId, filters, pageParam), CallListSchema),
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
