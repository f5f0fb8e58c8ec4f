import { useQuery } from "@tanstack/react-query";
import { CallListSchema } from "@/lib/contract/calls";
import { fetchJson, projectApi } from "../fetch-json";

/**
 * A derived key's name for people: the step and run of the call it belongs to (keys are hashes).
 * Null while unknown or when no call holds the key (it was purged): the caller shows the key.
 */
export function useKeyNameQuery(projectId: string, key: string) {
  return useQuery({
    queryKey: ["key-name", projectId, key],
    queryFn: async () => {
      const page = await fetchJson(`${projectApi(projectId).operator}/calls?${new URLSearchParams({ key, limit: "1" })}`, CallListSchema);
      const call = page.calls.find((c) => c.key === key);
      return call ? `${call.stepId ?? call.tool} · ${call.runId}` : null;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}
