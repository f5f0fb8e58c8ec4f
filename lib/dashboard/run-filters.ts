import { RUN_STATES, type RunState } from "../contract/calls";

/** The runs page's search as it lives in the URL (`?runId=…&agentId=…&tool=…&state=…`). */
export interface RunFilters {
  runId?: string;
  agentId?: string;
  tool?: string;
  state?: RunState;
}

const TEXT = ["runId", "agentId", "tool"] as const;

/** Lenient: an unknown state or an empty field is dropped rather than answered with an error page. */
export function runFiltersFromSearch(params: Pick<URLSearchParams, "get">): RunFilters {
  const filters: RunFilters = {};
  for (const field of TEXT) {
    const value = params.get(field)?.trim();
    if (value) filters[field] = value.slice(0, 200);
  }
  const state = params.get("state");
  if (state && (RUN_STATES as readonly string[]).includes(state)) filters.state = state as RunState;
  return filters;
}

/** The same filters as query parameters, in a fixed order (the URL and the query key agree). */
export function runFiltersToSearch(filters: RunFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const field of [...TEXT, "state"] as const) {
    const value = filters[field];
    if (value) search.set(field, value);
  }
  return search;
}
