import { useQuery } from "@tanstack/react-query";
import { DecisionListSchema } from "@/lib/contract/calls";
import { fetchJson, projectApi } from "../fetch-json";

/** The begins a figure counted (any member), loop blocks without a record included. */
export function useDecisionsQuery(projectId: string, input: { decision: string; decidedFrom: string; decidedTo: string; tool?: string } | null) {
  const search = new URLSearchParams();
  if (input) {
    if (input.tool) search.set("tool", input.tool);
    search.set("decision", input.decision);
    search.set("decidedFrom", input.decidedFrom);
    search.set("decidedTo", input.decidedTo);
  }
  return useQuery({
    queryKey: ["decisions", projectId, search.toString()],
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/decisions?${search}`, DecisionListSchema),
    enabled: input !== null,
  });
}
