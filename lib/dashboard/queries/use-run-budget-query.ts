import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RaiseRunBudgetRequest, RunBudgetSchema } from "@/lib/contract/budgets";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";
import { showAfterChange } from "./after-change";

const budgetUrl = (projectId: string, runId: string) => `${projectApi(projectId).operator}/runs/${encodeURIComponent(runId)}/budget`;

/** One run's spend against its budget (any role). */
export function useRunBudgetQuery(projectId: string, runId: string) {
  return useQuery({ queryKey: queryKeys.runBudget(projectId, runId), queryFn: () => fetchJson(budgetUrl(projectId, runId), RunBudgetSchema) });
}

/** An operator's raise of one run's budget (audited); the run's next begin reads it. */
export function useRaiseRunBudgetMutation(projectId: string, runId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (request: RaiseRunBudgetRequest) => postJson(budgetUrl(projectId, runId), RunBudgetSchema, request),
    onSuccess: (budget) => showAfterChange(client, queryKeys.runBudget(projectId, runId), budget),
  });
}
