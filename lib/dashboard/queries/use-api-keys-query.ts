import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiKeyListSchema, ApiKeySchema, CreatedApiKeySchema } from "@/lib/contract/operator";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";
import { refetchAfterChange } from "./after-change";

const keysUrl = (projectId: string) => `${projectApi(projectId).operator}/api-keys`;

/** The project's API keys, never the keys themselves (admin role). */
export function useApiKeysQuery(projectId: string, enabled = true) {
  return useQuery({ queryKey: queryKeys.apiKeys(projectId), queryFn: () => fetchJson(keysUrl(projectId), ApiKeyListSchema), enabled });
}

/**
 * Create a key (admin role). The answer carries the key itself, once: the caller keeps it in
 * component state only, and the list is refetched rather than fed from this answer.
 */
export function useCreateApiKeyMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => postJson(keysUrl(projectId), CreatedApiKeySchema, { name }),
    onSettled: () => refetchAfterChange(client, ["api-keys"]),
  });
}

export function useRevokeApiKeyMutation(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) => postJson(`${keysUrl(projectId)}/${encodeURIComponent(keyId)}/revoke`, ApiKeySchema, {}),
    onSettled: () => refetchAfterChange(client, ["api-keys"]),
  });
}
