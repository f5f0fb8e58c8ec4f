import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * After a change: refetch every query that shows it. Invalidating alone is not enough while a
 * query's first load is still in flight: React Query then joins that fetch instead of starting
 * another, so a list requested before the change answers without it (an allowlist entry added
 * while the panel was loading showed "Nothing is allowed out" until a reload). Such loads are
 * cancelled first, so their refetch starts after the change; a query that has data already gets a
 * fresh fetch from the invalidation itself.
 */
export async function refetchAfterChange(client: QueryClient, ...queryKeys: QueryKey[]): Promise<void> {
  const firstLoad = { predicate: (query: { state: { data: unknown } }) => query.state.data === undefined };
  await Promise.all(queryKeys.map((queryKey) => client.cancelQueries({ queryKey, ...firstLoad })));
  await Promise.all(queryKeys.map((queryKey) => client.invalidateQueries({ queryKey })));
}

/**
 * After a change whose answer is the new state of one query: show that answer. A fetch of the same
 * query still in flight was asked before the change, so it is cancelled first; arriving later, its
 * older answer would replace the new one.
 */
export async function showAfterChange<T>(client: QueryClient, queryKey: QueryKey, data: T): Promise<void> {
  await client.cancelQueries({ queryKey, exact: true });
  client.setQueryData(queryKey, data);
}
