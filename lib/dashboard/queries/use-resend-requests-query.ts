import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { OperatorResendRequestSchema, ResendListSchema } from "@/lib/contract/operator";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";
import { refetchAfterChange } from "./after-change";

/** The project's resend requests (any role), optionally one status only. */
export function useResendRequestsQuery(projectId: string, status?: "pending" | "approved" | "denied") {
  return useQuery({
    queryKey: queryKeys.resendRequests(projectId, status),
    queryFn: () =>
      fetchJson(`${projectApi(projectId).operator}/resend-requests?${new URLSearchParams(status ? { status, limit: "200" } : { limit: "100" })}`, ResendListSchema),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}

/** Approve or deny (operator role) with a note; every resend list is refreshed afterwards. */
export function useDecideResendMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ requestId, decision, note }: { requestId: string; decision: "approve" | "deny"; note: string }) =>
      postJson(`${projectApi(projectId).operator}/resend-requests/${encodeURIComponent(requestId)}/${decision}`, OperatorResendRequestSchema, { note }),
    onSettled: () => refetchAfterChange(client, ["resend-requests"]),
  });
}
