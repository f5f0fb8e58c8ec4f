import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { OperatorPreviewSchema, type PREVIEW_STATUSES, PreviewListSchema } from "@/lib/contract/previews";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";
import { refetchAfterChange } from "./after-change";

/** The project's previews (any role), optionally one status only: the approvals inbox's first executions. */
export function usePreviewsQuery(projectId: string, status?: (typeof PREVIEW_STATUSES)[number]) {
  return useQuery({
    queryKey: queryKeys.previews(projectId, status),
    queryFn: () =>
      fetchJson(`${projectApi(projectId).operator}/previews?${new URLSearchParams(status ? { status, limit: "200" } : { limit: "100" })}`, PreviewListSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}

/** Approve (releases the token) or deny a pending preview with a note (operator role, never the asker). */
export function useDecidePreviewMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ previewId, decision, note }: { previewId: string; decision: "approve" | "deny"; note: string }) =>
      postJson(`${projectApi(projectId).operator}/previews/${encodeURIComponent(previewId)}/${decision}`, OperatorPreviewSchema, { note }),
    onSettled: () => refetchAfterChange(client, ["previews"]),
  });
}
