import { useQuery } from "@tanstack/react-query";
import { AuditListSchema } from "@/lib/contract/operator";
import type { PolicyChange } from "../prepare-policy-marks";
import { fetchJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";

/** The most policy changes one range's charts mark; more are rare, and the caption says when the list is cut. */
const MAX_CHANGES = 500;

/**
 * Every tool's policy changes in a range (saves and restores), from the audit log, which any role
 * may read: the overview marks them on its charts. Entries whose detail lacks a tool or version
 * (none the gate writes) are left out.
 */
export function usePolicyChangesQuery(projectId: string, from: string, to: string) {
  return useQuery({
    queryKey: queryKeys.audit(projectId, { action: "policy.", from, to, marks: true }),
    queryFn: async () => {
      const search = new URLSearchParams({ action: "policy.", from, to, limit: String(MAX_CHANGES) });
      const list = await fetchJson(`${projectApi(projectId).operator}/audit?${search}`, AuditListSchema);
      const changes: (PolicyChange & { author: string })[] = [];
      for (const entry of list.entries) {
        const detail = entry.detail as { tool?: unknown; version?: unknown } | null;
        if (typeof detail?.tool !== "string" || typeof detail.version !== "number") continue;
        changes.push({ at: Date.parse(entry.at), tool: detail.tool, version: detail.version, author: entry.actor.label ?? "" });
      }
      return { changes: changes.reverse(), truncated: list.nextBefore !== null };
    },
    refetchInterval: POLL_MS,
  });
}
