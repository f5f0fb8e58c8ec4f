import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RunCompensationSchema } from "@/lib/contract/sagas";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { POLL_MS, queryKeys } from "./keys";
import { refetchAfterChange, showAfterChange } from "./after-change";

/** A run's saga state and compensation plan (any role); polled while runners work on it. */
export function useSagaQuery(projectId: string, runId: string) {
  return useQuery({
    queryKey: queryKeys.saga(projectId, runId),
    queryFn: () => fetchJson(`${projectApi(projectId).operator}/runs/${encodeURIComponent(runId)}/compensation`, RunCompensationSchema),
    refetchInterval: (query) => (query.state.data?.state === "compensating" ? 2_000 : POLL_MS),
  });
}

export type SagaAction =
  | { action: "abort"; reason: string }
  | { action: "retry"; callId: string; reason: string }
  | { action: "resolve"; callId: string; note: string };

/** Operator actions on a run (operator role): abort it, retry a failed undo, or resolve one by hand (all audited). */
export function useSagaActionMutation(projectId: string, runId: string) {
  const client = useQueryClient();
  const base = `${projectApi(projectId).operator}/runs/${encodeURIComponent(runId)}`;
  return useMutation({
    mutationFn: (input: SagaAction) => {
      switch (input.action) {
        case "abort":
          return postJson(`${base}/abort`, RunCompensationSchema, { reason: input.reason });
        case "retry":
          return postJson(`${base}/compensations/${encodeURIComponent(input.callId)}/retry`, RunCompensationSchema, { reason: input.reason });
        case "resolve":
          return postJson(`${base}/compensations/${encodeURIComponent(input.callId)}/resolve`, RunCompensationSchema, { note: input.note });
      }
    },
    onSuccess: (plan) => showAfterChange(client, queryKeys.saga(projectId, runId), plan),
    onSettled: () => {
      void refetchAfterChange(client, ["saga"], ["run"], ["runs"], ["operator-queue"], ["audit"]);
    },
  });
}
