import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ShadowResponseSchema } from "@/lib/contract/stats";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** The shadow read scans the ledger, so the API takes a month at most: a longer range asks for its last 31 days. */
export const SHADOW_MAX_SPAN_MS = 31 * 86_400_000;

export function shadowRange(from: string, to: string): { from: string; to: string; clipped: boolean } {
  const end = Date.parse(to);
  const start = Math.max(Date.parse(from), end - SHADOW_MAX_SPAN_MS);
  return { from: new Date(start).toISOString(), to, clipped: start > Date.parse(from) };
}

/** Shadow mode per tool (any member): executions the gate would have prevented as duplicates over the range. */
export function useShadowQuery(projectId: string, from: string, to: string) {
  const range = shadowRange(from, to);
  return useQuery({
    queryKey: queryKeys.shadow(projectId, range.from, range.to),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/stats/shadow?${new URLSearchParams({ from: range.from, to: range.to })}`, ShadowResponseSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}
