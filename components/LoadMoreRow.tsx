import type { UseInfiniteQueryResult } from "@tanstack/react-query";
import { ErrorState } from "./StateViews";

/**
 * The footer of a cursor-paged list: "Load more" while the server has more, what the end means
 * once it has none, a Refresh that re-reads every loaded page, and the error of a failed page.
 */
export function LoadMoreRow({ query, end = "End of the list." }: { query: UseInfiniteQueryResult; end?: string }) {
  return (
    <>
      <div className="row">
        {query.hasNextPage ? (
          <button type="button" onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        ) : (
          <span className="muted">{end}</span>
        )}
        <button type="button" onClick={() => query.refetch()} disabled={query.isFetching}>
          Refresh
        </button>
      </div>
      {query.isFetchNextPageError ? <ErrorState error={query.error} /> : null}
    </>
  );
}
