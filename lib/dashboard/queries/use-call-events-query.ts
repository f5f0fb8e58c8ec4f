import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { CallLedgerSchema } from "@/lib/contract/calls";
import { OperatorResendRequestSchema, type ResolveSchema } from "@/lib/contract/operator";
import { CallStatusSchema } from "@/lib/contract/v1";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";
import { refetchAfterChange } from "./after-change";

const callUrl = (projectId: string, callId: string) => `${projectApi(projectId).operator}/calls/${encodeURIComponent(callId)}`;

/** A call's ledger with its args and result, redacted under the current policy (any role). */
export function useCallEventsQuery(projectId: string, callId: string) {
  return useQuery({
    queryKey: queryKeys.callEvents(projectId, callId),
    queryFn: () => fetchJson(`${callUrl(projectId, callId)}/events`, CallLedgerSchema),
  });
}

/** After an action: the record, its ledger and every list that shows it. */
export function useRefreshCall(projectId: string, callId: string) {
  const client = useQueryClient();
  return () =>
    refetchAfterChange(client, queryKeys.call(projectId, callId), queryKeys.callEvents(projectId, callId), ["calls"], ["run"]);
}

/** Record the outcome found downstream for a verify or lease-lost case (operator role). */
export function useResolveCallMutation(projectId: string, callId: string) {
  const refresh = useRefreshCall(projectId, callId);
  return useMutation({
    mutationFn: (body: z.input<typeof ResolveSchema>) => postJson(`${callUrl(projectId, callId)}/resolve`, CallStatusSchema, body),
    onSuccess: refresh,
  });
}

/** Ask for a resend of a completed call (operator role); another operator approves it. */
export function useRequestResendMutation(projectId: string, callId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (reason: string) => postJson(`${projectApi(projectId).operator}/resend-requests`, OperatorResendRequestSchema, { callId, reason }),
    onSuccess: () => refetchAfterChange(client, ["resend-requests"]),
  });
}
