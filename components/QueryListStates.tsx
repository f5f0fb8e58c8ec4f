import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ErrorState, Loading } from "./StateViews";

/**
 * A list query's error, loading and empty states, then its items. The error comes first, as
 * elsewhere in the dashboard: a failed refetch shows the error, not the rows it could not refresh.
 */
export function QueryListStates<T, Item>({
  query,
  items,
  loading,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  items: (data: T) => Item[];
  loading: string;
  empty: ReactNode;
  children: (items: Item[]) => ReactNode;
}) {
  if (query.error) return <ErrorState error={query.error} onRetry={() => query.refetch()} />;
  if (query.isPending) return <Loading label={loading} />;
  const list = items(query.data);
  return list.length === 0 ? empty : children(list);
}
