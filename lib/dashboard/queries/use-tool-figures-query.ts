import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ToolPageFiguresSchema } from "@/lib/contract/stats";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS } from "./keys";

/** One tool's figures over [from, to) (any member): the per-tool page. */
export function useToolFiguresQuery(projectId: string, tool: string, from: string, to: string, bucket: "minute" | "hour" | "day") {
  return useQuery({
    queryKey: ["tool-figures", projectId, tool, from, to, bucket],
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/tools/${encodeURIComponent(tool)}/figures?${new URLSearchParams({ from, to, bucket })}`, ToolPageFiguresSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}
