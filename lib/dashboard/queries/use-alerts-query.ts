import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  AlertDeliveriesSchema,
  AlertDeliverySchema,
  AlertChannelSchema,
  AlertRuleSchema,
  AlertsSchema,
  type CreateAlertChannel,
  type CreateAlertRule,
  CreatedAlertChannelSchema,
} from "@/lib/contract/alerts";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { refetchAfterChange } from "./after-change";

const alertsUrl = (projectId: string) => `${projectApi(projectId).operator}/alerts`;
const KEY = "alerts";

/** The project's alert channels (no secrets) and rules (admin role). */
export function useAlertsQuery(projectId: string) {
  return useQuery({ queryKey: [KEY, { projectId }], queryFn: () => fetchJson(alertsUrl(projectId), AlertsSchema) });
}

/** The latest deliveries with their attempts; polled while the page is open. */
export function useAlertDeliveriesQuery(projectId: string) {
  return useQuery({
    queryKey: [KEY, "deliveries", { projectId }],
    queryFn: () => fetchJson(`${alertsUrl(projectId)}/deliveries`, AlertDeliveriesSchema),
    refetchInterval: 2_000,
  });
}

function useAlertsMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSettled: () => refetchAfterChange(client, [KEY]) });
}

export function useAddAlertChannelMutation(projectId: string) {
  return useAlertsMutation((input: CreateAlertChannel) => postJson(`${alertsUrl(projectId)}/channels`, CreatedAlertChannelSchema, input));
}

export function useRemoveAlertChannelMutation(projectId: string) {
  return useAlertsMutation((id: string) => fetchJson(`${alertsUrl(projectId)}/channels/${encodeURIComponent(id)}`, AlertChannelSchema, { method: "DELETE" }));
}

export function useTestAlertMutation(projectId: string) {
  return useAlertsMutation((id: string) => postJson(`${alertsUrl(projectId)}/channels/${encodeURIComponent(id)}/test`, AlertDeliverySchema, {}));
}

export function useAddAlertRuleMutation(projectId: string) {
  return useAlertsMutation((input: CreateAlertRule) => postJson(`${alertsUrl(projectId)}/rules`, AlertRuleSchema, input));
}

export function useRemoveAlertRuleMutation(projectId: string) {
  return useAlertsMutation((id: string) => fetchJson(`${alertsUrl(projectId)}/rules/${encodeURIComponent(id)}`, AlertRuleSchema, { method: "DELETE" }));
}
